package policydiff_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh"
	_ "github.com/agentsh/agentsh/all"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/policydiff"
)

// writePolicies writes oldPolicy and newPolicy into dir.
func writePolicies(tb testing.TB, dir string) (oldFile, newFile string) {
	tb.Helper()
	oldFile, newFile = filepath.Join(dir, "old", "policy.star"), filepath.Join(dir, "new", "policy.star")
	for f, src := range map[string]string{oldFile: oldPolicy, newFile: newPolicy} {
		must(tb, os.MkdirAll(filepath.Dir(f), 0o755))
		must(tb, os.WriteFile(f, []byte(src), 0o644))
	}
	return oldFile, newFile
}

func diff(tb testing.TB, oldSet, newSet string, workdir string, sources []string) *policydiff.Report {
	tb.Helper()
	r, err := agentsh.DiffPolicies(context.Background(), agentsh.PolicyDiff{Old: oldSet, New: newSet, Sources: sources,
		Config: agentsh.Config{WorkDir: workdir}, Coverage: true})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestDiffGeneratedCorpus: over a generated corpus of audit records, a
// session and a recording, the diff reports exactly the calls the policy
// change changes, grouped by how, and nothing else; a policy against
// itself, or against a copy of itself whose lines moved, changes nothing.
func TestDiffGeneratedCorpus(t *testing.T) {
	c := genCorpus(t, corpusSize, false)
	oldFile, newFile := writePolicies(t, t.TempDir())
	r := diff(t, oldFile, newFile, c.workdir, c.sources)

	if r.Calls != c.calls || r.Skipped != c.skipped || r.SkippedBy["observe"] != c.skipped {
		t.Errorf("calls %d skipped %d %v, want %d and %d observe", r.Calls, r.Skipped, r.SkippedBy, c.calls, c.skipped)
	}
	if r.Changed != len(c.changed) {
		t.Errorf("changed %d, want %d", r.Changed, len(c.changed))
	}
	got := map[string]bool{}
	groups := map[string]int{}
	for _, g := range r.Changes {
		label := g.From.Verdict.String() + " by " + g.From.Hook + " -> " + g.To.Verdict.String() + " by " + g.To.Hook
		groups[label] += g.Count
		if g.Count != len(g.Calls) {
			t.Errorf("group %s: count %d, %d calls", label, g.Count, len(g.Calls))
		}
		for _, call := range g.Calls {
			key := call.At + " " + call.ID
			kind, ok := c.changed[key]
			switch {
			case !ok:
				t.Errorf("reported a call that did not change: %s %s %s (%s)", key, call.Tool, call.Args, label)
			case kind == 0 && (g.To.Verdict != core.VerdictDeny || g.To.Hook != "no_curl" || g.To.Source != newFile+":18"):
				t.Errorf("%s: curl call %s, want deny by no_curl (%s:18)", key, label, newFile)
			case kind == 1 && (g.From.Hook != "src_writes" || g.From.Verdict != core.VerdictDeny || g.To.Verdict != core.VerdictAllow):
				t.Errorf("%s: docs write %s, want deny → allow by src_writes", key, label)
			case kind == 0 && (call.Origin == "person") != (g.From.Verdict == core.VerdictAllow):
				// A person's bash runs by default, the others' asks: calls
				// alike but for their origin are decided each on its own.
				t.Errorf("%s: a call of origin %s was %s", key, call.Origin, label)
			}
			got[key] = true
		}
	}
	for key := range c.changed {
		if !got[key] {
			t.Errorf("missed a changed call: %s", key)
		}
	}
	var labels []string
	for l, n := range groups {
		labels = append(labels, l+" "+itoa(n))
	}
	sort.Strings(labels)
	t.Logf("groups: %s", strings.Join(labels, "; "))

	for _, same := range []string{oldFile, filepath.Join(t.TempDir(), "moved.star")} {
		if same != oldFile {
			must(t, os.WriteFile(same, []byte("# a line more: every source moves\n\n"+oldPolicy), 0o644))
		}
		if r := diff(t, oldFile, same, c.workdir, c.sources); r.Changed != 0 || len(r.Changes) != 0 || r.Calls != c.calls {
			t.Errorf("OLD against %s: %d changed in %d groups of %d calls, want none", same, r.Changed, len(r.Changes), r.Calls)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestSessionID: a source that is no file but a saved session's id reads
// that session.
func TestSessionID(t *testing.T) {
	c := genCorpus(t, 100, false) // saves session "generated"
	oldFile, newFile := writePolicies(t, t.TempDir())
	byPath := diff(t, oldFile, newFile, c.workdir, c.sources[1:2])
	byID := diff(t, oldFile, newFile, c.workdir, []string{"generated"})
	if byID.Calls != 10 || byID.Changed != byPath.Changed || byID.Sources[0] != byPath.Sources[0] {
		t.Errorf("by id: %d calls, %d changed, %+v; by path: %d changed, %+v", byID.Calls, byID.Changed, byID.Sources, byPath.Changed, byPath.Sources)
	}
}
