package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/search"
)

// endlessSearch is a backend that never stops emitting and ignores ctx,
// as a huge result from a careless backend would: the tool must stop it.
// It cancels the call after cancelAfter results.
type endlessSearch struct {
	cancelAfter int
	cancel      context.CancelFunc
	emitted     int
}

func (s *endlessSearch) Glob(_ context.Context, _ search.GlobRequest, emit func(string) bool) error {
	for s.emitted = 0; ; s.emitted++ {
		if s.emitted == s.cancelAfter {
			s.cancel()
		}
		if !emit(fmt.Sprintf("f%09d", s.emitted)) {
			return nil
		}
	}
}

func (s *endlessSearch) Grep(_ context.Context, _ search.GrepRequest, emit func(search.FileResult) bool) error {
	for s.emitted = 0; ; s.emitted++ {
		if s.emitted == s.cancelAfter {
			s.cancel()
		}
		if !emit(search.FileResult{Path: fmt.Sprintf("f%09d", s.emitted), Count: 1, Lines: []search.Line{{Number: 1, Text: "x", Match: true}}}) {
			return nil
		}
	}
}

// manyEntries is a FileOps whose every directory holds n entries, and
// which cancels the call the first time a directory is listed.
type manyEntries struct {
	tools.FileOps
	n      int
	cancel context.CancelFunc
}

type dirEntry string

func (d dirEntry) Name() string               { return string(d) }
func (d dirEntry) IsDir() bool                { return true }
func (d dirEntry) Type() fs.FileMode          { return fs.ModeDir }
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

func (m *manyEntries) ReadDir(context.Context, string) ([]fs.DirEntry, error) {
	m.cancel()
	out := make([]fs.DirEntry, m.n)
	for i := range out {
		out[i] = dirEntry(fmt.Sprintf("d%07d", i))
	}
	return out, nil
}

// A call cancelled while its output is being built stops at once with
// canceled, however much more the backend would give.
func TestCancelStopsOutputLoops(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"glob", map[string]any{"pattern": "**/*"}},
		{"grep", map[string]any{"pattern": "x", "offset": 1 << 40}},
		{"grep", map[string]any{"pattern": "x", "output_mode": "content", "offset": 1 << 40}},
		{"list_dir", map[string]any{"depth": 10}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		backend := &endlessSearch{cancelAfter: 1000, cancel: cancel}
		cfg := tools.ExtensionConfig{WorkingDir: t.TempDir(), Grep: backend, Glob: backend}
		e := newEnv(t, cfg)
		if c.tool == "list_dir" {
			lf, err := tools.OpenLocalFiles(e.dir)
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Close()
			e = newEnv(t, tools.ExtensionConfig{WorkingDir: e.dir, Files: &manyEntries{FileOps: lf, n: 100_000, cancel: cancel}})
		}
		raw, _ := json.Marshal(c.args)
		done := make(chan *core.Result, 1)
		go func() {
			res, _ := e.exec.InvokeTool(ctx, c.tool, raw)
			done <- res
		}()
		select {
		case res := <-done:
			if res.Kind() != core.KindCanceled {
				t.Errorf("%s %v: kind %s (%v, %d bytes), want canceled", c.tool, c.args, res.Kind(), res.Err, len(res.ForLLM))
			}
			if c.tool != "list_dir" && backend.emitted > 1001 {
				t.Errorf("%s %v: the backend emitted %d results after the cancel", c.tool, c.args, backend.emitted-1000)
			}
		case <-time.After(promptly):
			t.Fatalf("%s %v: did not stop within %v of being cancelled", c.tool, c.args, promptly)
		}
		cancel()
	}
}
