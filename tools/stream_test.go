package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/search"
)

// lineWriter is a stream that records what it is given and whether every
// write ended at the end of a line.
type lineWriter struct {
	mu       sync.Mutex
	text     strings.Builder
	writes   int
	partial  bool // a write did not end with "\n"
	maxWrite int
	// fail, when set, is the error of every write (nothing is kept).
	fail error
	// onWrite runs after each write.
	onWrite func()
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if w.fail != nil {
		return 0, w.fail
	}
	if len(p) > 0 && p[len(p)-1] != '\n' {
		w.partial = true
	}
	w.maxWrite = max(w.maxWrite, len(p))
	w.text.Write(p)
	if w.onWrite != nil {
		w.onWrite()
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// shown is what agentsh call prints of a held result.
func shown(res *core.Result) string {
	s := res.Display()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// streamCall runs a tool with an output stream asked for.
func (e *env) streamCall(w *lineWriter, name string, args any) *core.Result {
	e.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	res, _ := e.exec.InvokeTool(core.WithOutputStream(context.Background(), w), name, raw)
	return res
}

// grepRequests are many grep calls: every mode, with and without context,
// line numbers, offset and head_limit, over patterns with many matches,
// few and none.
func grepRequests() []map[string]any {
	var reqs []map[string]any
	for _, pat := range []string{"(?i)todo", "hit|[0-9]", "found nowhere"} {
		for _, mode := range []string{"", "files_with_matches", "count", "content"} {
			for _, page := range [][2]int{{-1, -1}, {0, 1}, {1, 2}, {3, 2}, {50, -1}} {
				shapes := []map[string]any{{}}
				if mode == "content" {
					shapes = append(shapes, map[string]any{"context": 1}, map[string]any{"before_context": 2},
						map[string]any{"after_context": 1, "line_numbers": false}, map[string]any{"line_numbers": false})
				}
				for _, shape := range shapes {
					r := map[string]any{"pattern": pat}
					if mode != "" {
						r["output_mode"] = mode
					}
					if page[0] >= 0 {
						r["offset"] = page[0]
					}
					if page[1] >= 0 {
						r["head_limit"] = page[1]
					}
					for k, v := range shape {
						r[k] = v
					}
					reqs = append(reqs, r)
				}
			}
		}
	}
	return append(reqs, map[string]any{"pattern": "TODO", "path": "b", "output_mode": "content"},
		map[string]any{"pattern": "TODO", "glob": "*.go", "output_mode": "count"},
		map[string]any{"pattern": "(", "output_mode": "content"})
}

// What grep writes to a stream is, byte for byte, what agentsh call
// prints of the held output, in whole lines, on every backend; and a call
// that fails writes nothing.
func TestGrepStreamsWhatItWouldHold(t *testing.T) {
	for _, pair := range backendsAvailable(t) {
		t.Run(pair[0], func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{})
			searchTree(e)
			e.write(map[string]string{
				"new\nline.go": "// TODO in a name with a newline\n",
				"tab\there.md": "TODO 1\n2\nTODO 3\n",
				`"quoted.txt`:  "todo\n",
			})
			if runtime.GOOS == "linux" {
				e.write(map[string]string{"bad\xff.txt": "TODO in a name that is not UTF-8\n"})
			}
			if err := e.ext.SetGrepBackend(pair[0]); err != nil {
				t.Fatal(err)
			}
			for i, req := range grepRequests() {
				if pair[0] != "native" && i%5 != 0 {
					continue // the formatting is the backends' own: a sample will do
				}
				held := e.call("grep", req)
				var w lineWriter
				res := e.streamCall(&w, "grep", req)
				if !held.OK() {
					if res.OK() || res.Kind() != held.Kind() || w.writes != 0 {
						t.Errorf("%v: held fails with %v; streamed: %v after %d writes, want the same failure and no write", req, held.Err, res.Err, w.writes)
					}
					continue
				}
				if !res.OK() || !res.Streamed || res.ForLLM != "" || res.Data != nil {
					t.Errorf("%v: streamed result: err %v, Streamed %v, ForLLM %q, Data %v; want Streamed and nothing else", req, res.Err, res.Streamed, res.ForLLM, res.Data)
					continue
				}
				if got, want := w.String(), shown(held); got != want {
					t.Errorf("%v: streamed\n%q\nwant the held output\n%q", req, got, want)
				}
				if w.partial {
					t.Errorf("%v: a write ended inside a line", req)
				}
			}
		})
	}
}

// synthGrep is a backend that emits files f00000.txt, f00001.txt, ...
// (files of them, or without end when files is 0), each with lines lines
// of text, and counts the files it emitted.
type synthGrep struct {
	files, lines int
	text         string

	mu      sync.Mutex
	emitted int
	lastReq search.GrepRequest
}

func (g *synthGrep) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	g.mu.Lock()
	g.lastReq = req
	g.mu.Unlock()
	for i := 0; g.files == 0 || i < g.files; i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f := search.FileResult{Path: fmt.Sprintf("f%05d.txt", i), Count: g.lines}
		if req.Mode == search.ModeContent {
			for n := 1; n <= g.lines; n++ {
				f.Lines = append(f.Lines, search.Line{Number: n, Text: g.text, Match: true})
			}
		}
		g.mu.Lock()
		g.emitted++
		g.mu.Unlock()
		if !emit(f) {
			return nil
		}
	}
	return nil
}

// The output cap applies to a stream as to the held output, with the same
// trailer, and a stream is written in chunks: grep never gathers much of
// its output before writing it.
func TestGrepStreamKeepsTheOutputCap(t *testing.T) {
	if raceEnabled {
		t.Skip("64 MiB of output is slow under the race detector; TestGrepOutputCap checks the cap with a small one")
	}
	g := &synthGrep{files: 40, lines: 1000, text: strings.Repeat("x", 1990) + "é"}
	e := newEnv(t, tools.ExtensionConfig{Grep: g})
	req := map[string]any{"pattern": "x", "output_mode": "content", "head_limit": 100000000}
	held := e.call("grep", req)
	if !held.OK() {
		t.Fatal(held.Err)
	}
	want := shown(held)
	if len(want) > 64<<20 || !strings.HasSuffix(want, "]\n") || !strings.Contains(want[len(want)-100:], "[more results; continue with offset ") {
		t.Fatalf("held output of %d bytes ends %q; want at most 64 MiB ending with the trailer", len(want), want[max(len(want)-100, 0):])
	}
	g.emitted = 0
	var w lineWriter
	res := e.streamCall(&w, "grep", req)
	if !res.OK() || !res.Streamed {
		t.Fatalf("streamed: %v, Streamed %v", res.Err, res.Streamed)
	}
	if got := w.String(); got != want {
		t.Errorf("streamed %d bytes, want the %d held; they differ", len(got), len(want))
	}
	if w.partial || w.maxWrite > 1<<20 {
		t.Errorf("writes: %d, largest %d bytes, partial %v; want whole lines in chunks far below a MiB", w.writes, w.maxWrite, w.partial)
	}
	if g.emitted >= g.files {
		t.Errorf("the backend emitted all %d files; want the cap to stop the search", g.emitted)
	}
}

// A stream whose reader has gone (EPIPE) stops the search at once and
// fails the call with the write's error.
func TestGrepStreamStopsOnAFailingWriter(t *testing.T) {
	g := &synthGrep{lines: 50, text: "a line"} // without end
	e := newEnv(t, tools.ExtensionConfig{Grep: g})
	w := &lineWriter{fail: syscall.EPIPE}
	res := e.streamCall(w, "grep", map[string]any{"pattern": "a", "output_mode": "content", "head_limit": 100000000})
	if res.OK() || !errors.Is(res.Err, syscall.EPIPE) || !strings.Contains(res.Err.Error(), "grep: writing the output: ") {
		t.Fatalf("got %v; want a failure wrapping EPIPE that says the output could not be written", res.Err)
	}
	if w.writes != 1 {
		t.Errorf("%d writes; want the first to stop the search", w.writes)
	}
	// A write is a chunk of 64 KiB: about 1,100 lines of this size.
	if g.emitted > 100 {
		t.Errorf("the backend emitted %d files; want the search stopped at the failed write", g.emitted)
	}
}

// A call cancelled while it streams ends canceled; what it wrote is whole
// lines of the output, in order.
func TestGrepStreamCanceled(t *testing.T) {
	g := &synthGrep{lines: 20, text: "some text"} // without end
	e := newEnv(t, tools.ExtensionConfig{Grep: g})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &lineWriter{}
	w.onWrite = func() {
		if w.writes == 2 {
			cancel()
		}
	}
	raw := []byte(`{"pattern": "t", "output_mode": "content", "head_limit": 100000000}`)
	res, _ := e.exec.InvokeTool(core.WithOutputStream(ctx, w), "grep", raw)
	if res.Kind() != core.KindCanceled {
		t.Fatalf("got %v (kind %q); want canceled", res.Err, res.Kind())
	}
	out := w.String()
	if w.writes != 2 || w.partial || out == "" {
		t.Fatalf("%d writes, partial %v; want two writes of whole lines", w.writes, w.partial)
	}
	line := regexp.MustCompile(`^f(\d{5})\.txt:(\d+):some text$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a line of the output", l)
		}
		if want := fmt.Sprintf("f%05d.txt:%d:some text", n/20, n%20+1); l != want {
			t.Fatalf("line %d is %q, want %q: lines lost or reordered", n+1, l, want)
		}
		n++
	}
}

// When an after hook or middleware applies to grep, grep holds its
// output, which the hook sees whole; a rejected call writes nothing.
func TestGrepHoldsWhenThePipelineSeesTheOutput(t *testing.T) {
	req := map[string]any{"pattern": "TODO", "output_mode": "content", "context": 1}
	var want string
	{
		e := newEnv(t, tools.ExtensionConfig{})
		searchTree(e)
		want = e.call("grep", req).ForLLM
	}
	for _, c := range []struct {
		name string
		add  func(ex *executor.Executor, saw *string) error
	}{
		{"after hook", func(ex *executor.Executor, saw *string) error {
			return ex.AddAfter(core.AfterHook{Name: "audit", Tools: []string{"grep"}, Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
				*saw = res.ForLLM
				return nil
			}})
		}},
		{"middleware", func(ex *executor.Executor, saw *string) error {
			return ex.Use(core.Middleware{Name: "look", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
				res := next(ctx, call)
				*saw = res.ForLLM
				return res
			}})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{})
			searchTree(e)
			var saw string
			if err := c.add(e.exec, &saw); err != nil {
				t.Fatal(err)
			}
			var w lineWriter
			res := e.streamCall(&w, "grep", req)
			if !res.OK() || res.Streamed || res.ForLLM != want || w.writes != 0 {
				t.Errorf("got err %v, Streamed %v, %d writes, ForLLM\n%s\nwant the output held:\n%s", res.Err, res.Streamed, w.writes, res.ForLLM, want)
			}
			if saw != want {
				t.Errorf("the %s saw\n%s\nwant the whole output:\n%s", c.name, saw, want)
			}
		})
	}
	t.Run("rejected", func(t *testing.T) {
		e := newEnv(t, tools.ExtensionConfig{})
		searchTree(e)
		err := e.exec.AddBefore(core.BeforeHook{Name: "no", Tools: []string{"grep"}, Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			return nil, core.Deny("no searching")
		}})
		if err != nil {
			t.Fatal(err)
		}
		var w lineWriter
		if res := e.streamCall(&w, "grep", req); res.Kind() != core.KindRejected || w.writes != 0 {
			t.Errorf("got %v after %d writes; want rejected and nothing written", res.Err, w.writes)
		}
	})
}

// grep tells the backend what its mode reads and how many files a page
// can take at most: head_limit after offset, and one more to learn that
// there are more.
func TestGrepRequestCarriesModeAndLimit(t *testing.T) {
	g := &synthGrep{files: 5, lines: 2, text: "x"}
	e := newEnv(t, tools.ExtensionConfig{Grep: g})
	for _, c := range []struct {
		args  map[string]any
		mode  search.Mode
		limit int
	}{
		{map[string]any{}, search.ModeFiles, 501},
		{map[string]any{"output_mode": "files_with_matches", "head_limit": 3, "offset": 2}, search.ModeFiles, 6},
		{map[string]any{"output_mode": "count", "head_limit": 1}, search.ModeCount, 2},
		{map[string]any{"output_mode": "content", "offset": 10}, search.ModeContent, 511},
		{map[string]any{"output_mode": "content", "head_limit": 1 << 62, "offset": 1 << 62}, search.ModeContent, 0},
	} {
		c.args["pattern"] = "x"
		if res := e.call("grep", c.args); !res.OK() {
			t.Fatalf("%v: %v", c.args, res.Err)
		}
		if g.lastReq.Mode != c.mode || g.lastReq.Limit != c.limit {
			t.Errorf("%v: request Mode %d, Limit %d; want %d and %d", c.args, g.lastReq.Mode, g.lastReq.Limit, c.mode, c.limit)
		}
	}
}
