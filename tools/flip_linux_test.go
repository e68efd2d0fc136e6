package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/tools"
	"golang.org/x/sys/unix"
)

// keepSwapping swaps a and b (renameat2 RENAME_EXCHANGE, atomically)
// over and over on a goroutine of its own until the returned function is
// called, which waits for it to stop; it may be called more than once.
func keepSwapping(t *testing.T, a, b string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
		}
	}()
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// While another process keeps swapping a directory with a link that leads
// out (renameat2 RENAME_EXCHANGE, atomically), no file tool ever reads,
// lists, writes or edits anything outside: each call works inside or
// fails.
func TestFileToolsRaceAFlippedLink(t *testing.T) {
	base := t.TempDir()
	work := filepath.Join(base, "work")
	writeTree(t, base, map[string]string{
		"outside/f":                secret + "\ninside\n",
		"outside/sub/f":            secret + "\ninside\n",
		"outside/outside_only.txt": secret + "\n",
		"work/flip/f":              "inside\n",
		"work/flip/sub/f":          "inside\n",
	})
	if err := os.Symlink("../outside", filepath.Join(work, "other")); err != nil {
		t.Fatal(err)
	}
	outsideBefore := snapshot(t, filepath.Join(base, "outside"))
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})

	stopFlipping := keepSwapping(t, filepath.Join(work, "flip"), filepath.Join(work, "other"))
	defer stopFlipping()

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "flip/f"}},
		{"read_file", map[string]any{"path": "flip/sub/f"}},
		{"list_dir", map[string]any{"path": "flip", "depth": 2}},
		{"write_file", map[string]any{"path": "flip/new.txt", "content": "PWNED\n"}},
		{"write_file", map[string]any{"path": "flip/sub/f", "content": "inside\n"}},
		{"write_file", map[string]any{"path": "flip/made/deep/x", "content": "PWNED\n"}},
		{"edit_file", map[string]any{"path": "flip/f", "old_string": "inside", "new_string": "inside!"}},
		{"edit_file", map[string]any{"path": "flip/sub/f", "old_string": "inside", "new_string": "PWNED"}},
	}
	rounds := 250 // of every call: 2,000 calls
	if testing.Short() {
		rounds = 50
	}
	worked, refused := 0, 0
	for i := 0; i < rounds*len(calls) || (worked == 0 || refused == 0) && i < 5*rounds*len(calls); i++ {
		c := calls[i%len(calls)]
		res := e.call(c.tool, c.args)
		out := res.ForLLM
		if res.Err != nil {
			out += res.Err.Error()
			refused++
		} else {
			worked++
		}
		if strings.Contains(out, secret) || strings.Contains(out, "outside_only") {
			t.Fatalf("%s %v exposed the outside: %q", c.tool, c.args, out)
		}
	}
	stopFlipping()
	if got := snapshot(t, filepath.Join(base, "outside")); got != outsideBefore {
		t.Fatalf("the outside changed:\nbefore:\n%s\nafter:\n%s", outsideBefore, got)
	}
	t.Logf("%d calls worked, %d were refused", worked, refused)
	if worked == 0 || refused == 0 {
		t.Errorf("the race was not exercised: %d calls worked, %d were refused", worked, refused)
	}
}
