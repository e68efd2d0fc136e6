package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// explain runs no tool and leaves the session as it was: a call made
// afterwards in the same process sees no trace of the hooks that ran
// while deciding, and the same call for real does run.
func TestExplainLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.star")
	// watch calls mark, whose hook is watch again: "inside" keeps it to
	// the outer call.
	err := os.WriteFile(policy, []byte(`
def mark(args):
    invoke_tool("write_file", {"path": "marker", "content": "ran"})
    return "marked"

tool(name = "mark", fn = mark)
tool(name = "seen", fn = lambda args: str(state.get("seen", 0)), read_only = True)

def watch(call):
    if state.get("inside"):
        return
    state.set("inside", True)
    state.incr("seen")
    invoke_tool("mark")

before(watch, tools = ["mark"])
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	o, err := parseArgs([]string{"--workdir", dir, "--load", policy, "explain", "mark"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(o, stdio{in: strings.NewReader(""), out: &out, err: &errb}, []string{"agentsh"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	ctx := context.Background()
	a.runCtx = ctx
	if code := a.dispatch(ctx); code != 0 {
		t.Fatalf("explain mark: exit %d, want 0 (would run)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if !strings.HasSuffix(out.String(), "would run\n") {
		t.Errorf("explain mark printed\n%s\nwant it to end with would run", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("explain ran the tool mark: the marker file exists")
	}
	seen := func() string {
		res := a.sh.Executor().Invoke(ctx, core.Call{Name: "seen"})
		if !res.OK() {
			t.Fatalf("seen: %v", res.Err)
		}
		return res.ForLLM
	}
	if got := seen(); got != "0" {
		t.Errorf("after explain, state seen = %s, want 0: what a hook stored while deciding reached the session", got)
	}
	if keys := a.sh.Host().StateKeys(ctx); len(keys) != 0 {
		t.Errorf("after explain, the session holds %q, want nothing", keys)
	}
	// The call for real runs the hook and the tool.
	if res := a.sh.Executor().Invoke(ctx, core.Call{Name: "mark"}); !res.OK() {
		t.Fatalf("mark: %v", res.Err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Errorf("the real call did not write the marker: %v", err)
	}
	if got := seen(); got != "1" {
		t.Errorf("after the real call, state seen = %s, want 1", got)
	}
}
