package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestBuiltinParsesAndIsDated(t *testing.T) {
	b := Builtin()
	if b.AsOf() == "" || len(b.Models()) < 10 {
		t.Fatalf("built-in table: as_of %q, %d models", b.AsOf(), len(b.Models()))
	}
	for _, k := range b.Models() {
		if strings.Contains(k, "*") {
			t.Errorf("built-in key %q is a prefix; the built-in table matches exactly", k)
		}
		p := b.get().models[k]
		if p.Output <= 0 || p.Input <= 0 || p.CacheRead > p.Input {
			t.Errorf("%s: implausible price %+v", k, p)
		}
	}
}

func TestBuiltinCost(t *testing.T) {
	u := provider.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 400_000}
	// claude-sonnet-4-5: 3 in, 15 out, 0.30 cache read, 3.75 cache write.
	got, ok := Builtin().Cost("anthropic:claude-sonnet-4-5", u)
	if want := 3 + 1.5 + 0.6 + 1.5; !ok || !near(got, want) {
		t.Errorf("cost %v %v, want %v true", got, ok, want)
	}
	// gpt-4o: 2.50 in, 10 out, 1.25 cached.
	got, ok = Builtin().Cost("openai:gpt-4o", provider.Usage{InputTokens: 184, OutputTokens: 25, CacheReadTokens: 2816})
	if want := (184*2.5 + 25*10 + 2816*1.25) / 1e6; !ok || !near(got, want) {
		t.Errorf("cost %v %v, want %v true", got, ok, want)
	}
}

func TestLookupRules(t *testing.T) {
	over, err := Parse("over.json", []byte(`{"models": {
		"ollama:*": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
		"ollama:llama3*": {"input": 1, "output": 1, "cache_read": 1, "cache_write": 1},
		"my-*": {"input": 2, "output": 2, "cache_read": 2, "cache_write": 2},
		"openai:gpt-4o": {"input": 9, "output": 9, "cache_read": 9, "cache_write": 9}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tab := Builtin().Merge(over)
	cases := []struct {
		model, key string
	}{
		{"anthropic:claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"anthropic:claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"anthropic:claude-3-7-sonnet-latest", "claude-3-7-sonnet"},
		{"openai:gpt-4o-2024-08-06", "openai:gpt-4o"}, // the qualified override first
		{"gpt-4o", "gpt-4o"},
		{"openai:gpt-4o-mini", "gpt-4o-mini"},
		{"ollama:llama3.2", "ollama:llama3*"}, // the longest prefix
		{"ollama:qwen3", "ollama:*"},
		{"openai:my-model", "my-*"},
		{"openai:gpt-4o-audio-preview", ""}, // never the nearest name
		{"openai:gpt-4", ""},
		{"scripted:fake_model", ""},
		{"replay:run.jsonl", ""},
		{"", ""},
		{"anthropic:-20250929", ""},
	}
	for _, c := range cases {
		_, key, ok := tab.Lookup(c.model)
		if key != c.key || ok != (c.key != "") {
			t.Errorf("Lookup(%q) = %q %v, want %q", c.model, key, ok, c.key)
		}
	}
	if _, ok := Builtin().Cost("ollama:qwen3", provider.Usage{InputTokens: 5}); ok {
		t.Error("the built-in table priced an ollama model")
	}
	var zero *Table
	if _, ok := zero.Cost("openai:gpt-4o", provider.Usage{}); ok {
		t.Error("a nil table priced a model")
	}
}

func TestLoadMergesOverBuiltin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(path, []byte(`{"as_of": "2030-01-01", "models": {
		"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_read": 0.5, "cache_write": 1.5},
		"house-model": {"input": 10, "output": 20, "cache_read": 0, "cache_write": 0}}}`), 0o600)
	tab, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tab.AsOf() != "2030-01-01" {
		t.Errorf("as_of %q", tab.AsOf())
	}
	if got, _ := tab.Cost("anthropic:claude-sonnet-4-5", provider.Usage{InputTokens: 1e6, OutputTokens: 1e6}); !near(got, 3) {
		t.Errorf("overridden cost %v, want 3", got)
	}
	if got, ok := tab.Cost("openai:house-model", provider.Usage{OutputTokens: 500_000}); !ok || !near(got, 10) {
		t.Errorf("added model cost %v %v, want 10", got, ok)
	}
	if got, ok := tab.Cost("openai:gpt-4o", provider.Usage{OutputTokens: 1e6}); !ok || !near(got, 10) {
		t.Errorf("built-in entry lost by the merge: %v %v", got, ok)
	}
	// The built-in table is unchanged.
	if got, _ := Builtin().Cost("anthropic:claude-sonnet-4-5", provider.Usage{InputTokens: 1e6}); !near(got, 3) {
		t.Errorf("Merge changed the built-in table: %v", got)
	}
}

func TestBadPriceFiles(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, body, want string }{
		{"empty", ``, "empty"},
		{"truncated", `{"models": {"gpt-4o": {"input": 1,`, "truncated"},
		{"syntax", "{\n\"models\": {\n\"a\": {\"input\": 1 \"output\": 2}}}", "line 3"},
		{"not-object", `[1, 2]`, "want"},
		{"no-models", `{"as_of": "2025-01-01"}`, `no "models"`},
		{"models-list", `{"models": [1]}`, "want an object of models"},
		{"unknown-top", `{"modles": {}}`, `unknown field "modles"`},
		{"unknown-field", `{"models": {"m": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0, "reasoning": 1}}}`, `unknown field "reasoning"`},
		{"missing", `{"models": {"m": {"input": 1, "output": 1, "cache_read": 0}}}`, "missing cache_write"},
		{"string-price", `{"models": {"m": {"input": "1", "output": 1, "cache_read": 0, "cache_write": 0}}}`, "input is string, want a number"},
		{"negative", `{"models": {"m": {"input": -1, "output": 1, "cache_read": 0, "cache_write": 0}}}`, "input is -1"},
		{"huge", `{"models": {"m": {"input": 1e300, "output": 1, "cache_read": 0, "cache_write": 0}}}`, "input is 1e+300"},
		{"overflow", `{"models": {"m": {"input": 1e999, "output": 1, "cache_read": 0, "cache_write": 0}}}`, "input"},
		{"duplicate", `{"models": {"m": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0}, "m": {"input": 2, "output": 1, "cache_read": 0, "cache_write": 0}}}`, `"m" appears twice`},
		{"star-inside", `{"models": {"gpt-*-mini": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0}}}`, `"*" may only end a key`},
		{"empty-key", `{"models": {"": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0}}}`, "empty"},
		{"space-key", `{"models": {"gpt 4o": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0}}}`, "spaces"},
		{"two-values", `{"models": {}} {}`, "more than one JSON value"},
		{"null-entry", `{"models": {"m": null}}`, "missing input"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".json")
		os.WriteFile(path, []byte(c.body), 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s and saying %q", c.name, err, path, c.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json: no such file") {
		t.Errorf("absent file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"models": {}, "pad": "`+strings.Repeat("x", MaxFileSize)+`"}`), 0o600)
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge file: %v", err)
	}
}

func TestConcurrentLookups(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				if _, ok := Builtin().Cost("anthropic:claude-haiku-4-5-20251001", provider.Usage{InputTokens: j}); !ok {
					t.Error("no price")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkCost(b *testing.B) {
	u := provider.Usage{InputTokens: 100, OutputTokens: 10}
	for _, model := range []string{"openai:gpt-4o", "anthropic:claude-sonnet-4-5-20250929", "scripted:fake"} {
		b.Run(model, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Builtin().Cost(model, u)
			}
		})
	}
}
