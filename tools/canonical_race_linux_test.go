package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/workpath"
)

// The limit of "what the hook saw is what was opened": the canonical path
// is decided before the tool opens it, so a link changed in between can
// change which file inside the working directory is opened; nothing
// outside is reachable. Calls run in parallel while two writers keep
// swapping a directory with a link (renameat2 RENAME_EXCHANGE): one link
// leads outside, the other to another directory inside. No call reads,
// lists or writes outside; every hook sees a path inside; every read
// returns a file that is inside. How often the file opened was not the
// one the hook saw is logged, not asserted: it depends on timing.
func TestCanonicalCallsRaceASwappedLink(t *testing.T) {
	base := t.TempDir()
	work := filepath.Join(base, "work")
	writeTree(t, base, map[string]string{
		"outside/f":            secret + " outside/f\n",
		"outside/sub/f":        secret + " outside/sub/f\n",
		"outside/outside_only": secret + "\n",
		"work/flip/f":          "inside flip/f\n",
		"work/flip/sub/f":      "inside flip/sub/f\n",
		"work/swap/f":          "inside swap/f\n",
		"work/other/f":         "inside other/f\n",
	})
	must(t, os.Symlink("../outside", filepath.Join(work, "out")))
	must(t, os.Symlink("other", filepath.Join(work, "in")))
	outsideBefore := snapshot(t, filepath.Join(base, "outside"))
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})

	var saw sync.Map // call ID → the canonical path the hook saw
	must(t, e.exec.AddBefore(core.BeforeHook{Name: "record", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		var a struct{ Path string }
		if err := json.Unmarshal(c.Args, &a); err != nil {
			return nil, err
		}
		p, err := workpath.Decode(a.Path)
		if err != nil {
			return nil, err
		}
		saw.Store(c.ID, p)
		return nil, nil
	}}))

	stopFlip := keepSwapping(t, filepath.Join(work, "flip"), filepath.Join(work, "out")) // a directory inside ↔ a link outside
	defer stopFlip()
	stopSwap := keepSwapping(t, filepath.Join(work, "swap"), filepath.Join(work, "in")) // a directory inside ↔ a link to another inside
	defer stopSwap()
	stopWriters := func() { stopFlip(); stopSwap() }

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "flip/f"}},
		{"read_file", map[string]any{"path": "flip/sub/f"}},
		{"read_file", map[string]any{"path": "swap/f"}},
		{"list_dir", map[string]any{"path": "flip"}},
		{"write_file", map[string]any{"path": "flip/new.txt", "content": "PWNED\n"}},
		{"write_file", map[string]any{"path": "flip/made/x", "content": "PWNED\n"}},
		{"write_file", map[string]any{"path": "swap/new.txt", "content": "swapped\n"}},
		{"edit_file", map[string]any{"path": "flip/sub/f", "old_string": "inside", "new_string": "PWNED"}},
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	var worked, refused, elsewhere atomic.Int64
	var callers sync.WaitGroup
	for g := range 4 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			for i := range rounds * len(calls) {
				c := calls[(i+g)%len(calls)]
				raw, _ := json.Marshal(c.args)
				res, _ := e.exec.InvokeTool(context.Background(), c.tool, raw)
				out := res.ForLLM
				if res.Err != nil {
					out += res.Err.Error()
					refused.Add(1)
				} else {
					worked.Add(1)
				}
				if strings.Contains(out, secret) || strings.Contains(out, "outside_only") {
					t.Errorf("%s %v exposed the outside: %q", c.tool, c.args, out)
					return
				}
				v, ok := saw.LoadAndDelete(res.CallID)
				if !ok {
					continue // refused before any hook: leads outside, or was not there
				}
				p := v.(string)
				if p == ".." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) || p == "out" || strings.HasPrefix(p, "out/") {
					t.Errorf("%s %v: the hook saw %q, not a path inside", c.tool, c.args, p)
				}
				if c.tool == "read_file" && res.OK() && !strings.Contains(out, "inside "+p) {
					elsewhere.Add(1) // the limit: the file opened is another inside
				}
			}
		}()
	}
	callers.Wait()
	stopWriters()
	if got := snapshot(t, filepath.Join(base, "outside")); got != outsideBefore {
		t.Fatalf("the outside changed:\nbefore:\n%s\nafter:\n%s", outsideBefore, got)
	}
	t.Logf("%d calls worked, %d were refused; %d reads opened another file inside than the hook saw", worked.Load(), refused.Load(), elsewhere.Load())
}
