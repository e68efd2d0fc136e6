package provider

import "testing"

func TestModelBase(t *testing.T) {
	for in, want := range map[string]string{
		"gpt-4o-2024-08-06": "gpt-4o", "claude-sonnet-4-5-20250929": "claude-sonnet-4-5", "claude-3-7-sonnet-latest": "claude-3-7-sonnet",
		"gpt-4-0613": "gpt-4", "gpt-4o": "gpt-4o", "model-2024": "model-2024", "m-2024-8-06": "m-2024-8-06", "m-2025092": "m-2025092",
		"m-2025O929": "m-2025O929", "20250929": "20250929", "-20250929": "-20250929", "m-2024-08-0x": "m-2024-08-0x",
		"m-20251399": "m-20251399", "m-1300": "m-1300", "m-0000": "m-0000", "gpt-4-1106-preview": "gpt-4-1106-preview", "": "",
		"-2024-08-06": "-2024-08-06", "latest": "latest", "m-latest-0613": "m-latest",
	} {
		if got := ModelBase(in); got != want {
			t.Errorf("ModelBase(%q) = %q, want %q", in, got, want)
		}
	}
}
