package policydiff_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsh/agentsh"
)

// BenchmarkPolicyDiff10k: agentsh policy diff over 10,000 recorded calls
// (the generated corpus: audit log, session, recording; about a third of
// them distinct, the rest the same calls again) under the shipped
// deny_patterns.star and that policy with a hook more: reading the
// sources, loading both sets and deciding the calls under both. The goal
// is at most 2 s on 2 cores.
func BenchmarkPolicyDiff10k(b *testing.B) { benchmarkPolicyDiff(b, false) }

// BenchmarkPolicyDiff10kDistinct: the same with no call recorded twice,
// so that every one is decided.
func BenchmarkPolicyDiff10kDistinct(b *testing.B) { benchmarkPolicyDiff(b, true) }

func benchmarkPolicyDiff(b *testing.B, distinct bool) {
	c := genCorpus(b, 10_000, distinct)
	shipped := filepath.Join("..", "scripts", "policies", "deny_patterns.star")
	src, err := os.ReadFile(shipped)
	must(b, err)
	newSet := filepath.Join(b.TempDir(), "new")
	must(b, os.MkdirAll(newSet, 0o755))
	must(b, os.WriteFile(filepath.Join(newSet, "deny_patterns.star"), src, 0o644))
	must(b, os.WriteFile(filepath.Join(newSet, "no_curl.star"), []byte(`
def no_curl(call):
    for run in call.effects["shell"]:
        if "curl" in run["command"]:
            return deny("no network from the shell: curl")

before(no_curl)
`), 0o644))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		r, err := agentsh.DiffPolicies(ctx, agentsh.PolicyDiff{Old: shipped, New: newSet, Sources: c.sources,
			Config: agentsh.Config{WorkDir: c.workdir}})
		if err != nil {
			b.Fatal(err)
		}
		if r.Calls != 10_000 || r.Changed == 0 {
			b.Fatalf("%d calls, %d changed: want 10000 and some", r.Calls, r.Changed)
		}
	}
}
