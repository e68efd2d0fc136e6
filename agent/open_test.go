package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

func TestOpenProvider(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "k")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(rec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, name := range map[string]string{
		"openai:gpt-4o":      "openai:gpt-4o",
		"anthropic:claude-x": "anthropic:claude-x",
		"ollama:llama3.2":    "ollama:llama3.2",
		"replay:" + rec:      "replay:" + rec,
	} {
		p, err := OpenProvider(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if p.Name() != name {
			t.Errorf("%s: name %q, want %q", spec, p.Name(), name)
		}
	}
	for spec, want := range map[string]string{
		"gpt-4o":              "want PROVIDER:MODEL",
		"openai:":             "want PROVIDER:MODEL",
		"mistral:large":       `unknown provider "mistral"`,
		"replay:/nonexistent": "no such file",
	} {
		if _, err := OpenProvider(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	if _, err := OpenProvider("openai:gpt-4o"); !errors.Is(err, provider.ErrAuth) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
}
