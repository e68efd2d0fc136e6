package all_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
	_ "github.com/agentsh/agentsh/provider/all"
)

func TestOpen(t *testing.T) {
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
		p, err := provider.Open(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if p.Name() != name {
			t.Errorf("%s: name %q, want %q", spec, p.Name(), name)
		}
	}
	for spec, want := range map[string]string{
		"gpt-4o":              "want PROVIDER:MODEL, where PROVIDER is one of anthropic, ollama, openai, replay",
		"openai:":             "want PROVIDER:MODEL",
		":gpt-4o":             "want PROVIDER:MODEL",
		"mistral:large":       `model "mistral:large": unknown provider "mistral"; want one of anthropic, ollama, openai, replay`,
		"replay:/nonexistent": "no such file",
	} {
		if _, err := provider.Open(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

func TestNamesAreTheAdapters(t *testing.T) {
	for _, want := range []string{"anthropic", "ollama", "openai", "replay"} {
		if !slices.Contains(provider.Names(), want) {
			t.Errorf("Names() = %v, missing %s", provider.Names(), want)
		}
	}
}

// TestMissingKeyHints checks that each adapter names its own key and
// nobody else's.
func TestMissingKeyHints(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	for spec, c := range map[string]struct{ want, not string }{
		"openai:gpt-4o":      {"OPENAI_API_KEY", "ANTHROPIC"},
		"anthropic:claude-x": {"ANTHROPIC_API_KEY", "OPENAI"},
	} {
		_, err := provider.Open(spec)
		if !errors.Is(err, provider.ErrAuth) {
			t.Errorf("%s: %v, want an auth error", spec, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) {
			t.Errorf("%s: %q, want %s and no %s", spec, msg, c.want, c.not)
		}
	}
}
