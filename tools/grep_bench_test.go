package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/search"
)

// replayGrep is a backend that emits the same results for every search,
// so that a benchmark measures grep's formatting, not a search.
type replayGrep struct{ files []search.FileResult }

func (g replayGrep) Grep(_ context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	for _, f := range g.files {
		if req.Mode != search.ModeContent {
			f.Lines = nil
		}
		if !emit(f) {
			return nil
		}
	}
	return nil
}

// benchResults are 200 files of 50 matching lines of Go-like text: 10,000
// lines, about 800 KB of output.
func benchResults() []search.FileResult {
	fs := make([]search.FileResult, 200)
	for i := range fs {
		f := search.FileResult{Path: fmt.Sprintf("pkg/dir%03d/file_%d.go", i/10, i), Count: 50}
		for n := range 50 {
			f.Lines = append(f.Lines, search.Line{Number: 10*n + 7, Text: fmt.Sprintf("\tif err := doSomething(ctx, value%d); err != nil { // func", n), Match: true})
		}
		fs[i] = f
	}
	return fs
}

var benchModes = []string{"content", "files_with_matches", "count"}

// BenchmarkGrepToolCall is what agentsh call does with grep's output:
// the call with a stream asked for, then what is not streamed printed.
func BenchmarkGrepToolCall(b *testing.B) {
	e := newEnv(b, tools.ExtensionConfig{Grep: replayGrep{benchResults()}})
	for _, mode := range benchModes {
		b.Run(mode, func(b *testing.B) {
			raw, _ := json.Marshal(map[string]any{"pattern": "func", "output_mode": mode, "head_limit": 100000000})
			w := &countingWriter{}
			ctx := core.WithOutputStream(context.Background(), w)
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.exec.InvokeTool(ctx, "grep", raw)
				if err != nil {
					b.Fatal(err)
				}
				if !res.Streamed {
					io.WriteString(w, res.Display())
				}
			}
			b.SetBytes(w.n / int64(b.N))
		})
	}
}

// BenchmarkGrepToolHeld is grep as scripts, MCP and the agent loop call
// it: the output held as text and data. In content_latin1 one line of
// the 10,000 is not UTF-8.
func BenchmarkGrepToolHeld(b *testing.B) {
	e := newEnv(b, tools.ExtensionConfig{Grep: replayGrep{benchResults()}})
	latin1 := benchResults()
	latin1[0].Lines[0].Text = "caf\xe9 " + latin1[0].Lines[0].Text
	el := newEnv(b, tools.ExtensionConfig{Grep: replayGrep{latin1}})
	for _, mode := range append(benchModes, "content_latin1") {
		b.Run(mode, func(b *testing.B) {
			e := e
			if mode == "content_latin1" {
				e, mode = el, "content"
			}
			raw, _ := json.Marshal(map[string]any{"pattern": "func", "output_mode": mode, "head_limit": 100000000})
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.exec.InvokeTool(context.Background(), "grep", raw)
				if err != nil || !strings.HasSuffix(res.ForLLM, "\n") {
					b.Fatal(err, res.ForLLM)
				}
			}
		})
	}
}

// countingWriter is a stdout that counts and drops what it is given.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
