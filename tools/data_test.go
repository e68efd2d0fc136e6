package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/tools"
)

// Every built-in tool gives scripts its outcome as data next to the text,
// with the markers of the text (no matches, empty, more results) as fields.
func TestResultData(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	searchTree(e)
	e.write(map[string]string{"empty.txt": "", "three.txt": "one\ntwo\nthree", "emptydir/.keep": ""})
	if err := os.Remove(filepath.Join(e.dir, "emptydir", ".keep")); err != nil {
		t.Fatal(err)
	}
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	e.write(map[string]string{"dot.png": png})
	if err := os.Symlink("a.go", filepath.Join(e.dir, "b", "link")); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
		text string // the start of the text, with its marker
		data string
	}{
		{"grep", map[string]any{"pattern": "TODO"}, "a.go\n",
			`{"mode":"files_with_matches","next_offset":null,"offset":0,"paths":["a.go","b/b.go","b/notes.md","dir with/s.go"],"total":4,"truncated":false}`},
		{"grep", map[string]any{"pattern": "TODO", "head_limit": 2}, "a.go\nb/b.go\n[more results; continue with offset 2]",
			`{"mode":"files_with_matches","next_offset":2,"offset":0,"paths":["a.go","b/b.go"],"total":null,"truncated":true}`},
		{"grep", map[string]any{"pattern": "TODO", "head_limit": 2, "offset": 2}, "b/notes.md\n",
			`{"mode":"files_with_matches","next_offset":null,"offset":2,"paths":["b/notes.md","dir with/s.go"],"total":4,"truncated":false}`},
		{"grep", map[string]any{"pattern": "TODO", "offset": 10}, "no results after offset 10 (there are 4)",
			`{"mode":"files_with_matches","next_offset":null,"offset":10,"paths":[],"total":4,"truncated":false}`},
		{"grep", map[string]any{"pattern": "zzz"}, "no matches for zzz",
			`{"mode":"files_with_matches","next_offset":null,"offset":0,"paths":[],"total":0,"truncated":false}`},
		{"grep", map[string]any{"pattern": "todo", "ignore_case": true, "output_mode": "count", "path": "a.go"}, "a.go:2",
			`{"counts":[{"count":2,"path":"a.go"}],"mode":"count","next_offset":null,"offset":0,"total":1,"truncated":false}`},
		{"grep", map[string]any{"pattern": "hit", "path": "ctx.txt", "output_mode": "content", "context": 1, "head_limit": 4}, "ctx.txt-2-2\n",
			`{"lines":[{"line":2,"match":false,"path":"ctx.txt","text":"2"},{"line":3,"match":true,"path":"ctx.txt","text":"hit"},` +
				`{"line":4,"match":false,"path":"ctx.txt","text":"4"},{"line":6,"match":false,"path":"ctx.txt","text":"6"}],` +
				`"mode":"content","next_offset":4,"offset":0,"total":null,"truncated":true}`},
		{"glob", map[string]any{"pattern": "**/*.go", "limit": 2}, "a.go\nb/b.go\n[showing the first 2 of 3 matches",
			`{"paths":["a.go","b/b.go"],"total":3,"truncated":true}`},
		{"glob", map[string]any{"pattern": "*.rs"}, "no files match *.rs",
			`{"paths":[],"total":0,"truncated":false}`},
		{"list_dir", map[string]any{"path": "b"}, "b.go\nlink@\nnotes.md\n",
			`{"entries":[{"path":"b.go","type":"file"},{"path":"link","type":"symlink"},{"path":"notes.md","type":"file"}],"omitted":0,"truncated":false}`},
		{"list_dir", map[string]any{"path": "emptydir"}, "[emptydir is empty]",
			`{"entries":[],"omitted":0,"truncated":false}`},
		{"read_file", map[string]any{"path": "three.txt", "offset": 2, "limit": 1}, "     2\ttwo\n[showing lines 2-2 of 3; continue with offset 3]",
			`{"lines":["two"],"next_offset":3,"offset":2,"path":"three.txt","total":3,"truncated":true}`},
		{"read_file", map[string]any{"path": "three.txt", "offset": 2}, "     2\ttwo\n     3\tthree\n",
			`{"lines":["two","three"],"next_offset":null,"offset":2,"path":"three.txt","total":3,"truncated":false}`},
		{"read_file", map[string]any{"path": "empty.txt"}, "[empty.txt is empty]",
			`{"lines":[],"next_offset":null,"offset":1,"path":"empty.txt","total":0,"truncated":false}`},
		{"read_file", map[string]any{"path": "dot.png"}, "[image dot.png: image/png",
			fmt.Sprintf(`{"mime_type":"image/png","path":"dot.png","size":%d}`, len(png))},
		{"write_file", map[string]any{"path": "new/w.txt", "content": "hello"}, "wrote 5 bytes to new/w.txt",
			`{"bytes":5,"path":"new/w.txt"}`},
		{"edit_file", map[string]any{"path": "new/w.txt", "old_string": "l", "new_string": "L", "replace_all": true}, "replaced 2 occurrences in new/w.txt",
			`{"path":"new/w.txt","replacements":2}`},
	} {
		res := e.call(c.tool, c.args)
		if !res.OK() {
			t.Errorf("%s %v: %v", c.tool, c.args, res.Err)
			continue
		}
		if !strings.HasPrefix(res.ForLLM, c.text) {
			t.Errorf("%s %v: text %q, want it to start with %q", c.tool, c.args, res.ForLLM, c.text)
		}
		if got := dataJSON(t, res); got != c.data {
			t.Errorf("%s %v: data\n%s\nwant\n%s", c.tool, c.args, got, c.data)
		}
	}
}

// bash gives its exit code and output as data, on success and on failure.
func TestShellData(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("bash tool tests need a Unix shell")
	}
	e := newEnv(t, tools.ExtensionConfig{})
	res := e.call("bash", map[string]any{"command": "echo out; echo err >&2"})
	if got, want := dataJSON(t, res), `{"exit_code":0,"output":"out\nerr\n","timed_out":false}`; !res.OK() || got != want {
		t.Errorf("bash ok: %v, data %s; want %s", res.Err, got, want)
	}
	res = e.call("bash", map[string]any{"command": ":"})
	if got, want := dataJSON(t, res), `{"exit_code":0,"output":"","timed_out":false}`; res.ForLLM != "(no output)" || got != want {
		t.Errorf("bash silent: text %q, data %s; want (no output) and %s", res.ForLLM, got, want)
	}
	res = e.call("bash", map[string]any{"command": "echo failing; exit 3"})
	if got, want := dataJSON(t, res), `{"exit_code":3,"output":"failing\n","timed_out":false}`; res.Kind() != core.KindFailed || got != want {
		t.Errorf("bash exit 3: kind %s, data %s; want failed and %s", res.Kind(), got, want)
	}
	res = e.call("bash", map[string]any{"command": "echo started; sleep 30", "timeout_ms": 200})
	var d map[string]any
	if res.Kind() != core.KindTimeout {
		t.Fatalf("bash timeout: kind %s (%v), want timeout", res.Kind(), res.Err)
	}
	d, _ = res.Data.(map[string]any)
	if d["timed_out"] != true || d["output"] != "started\n" {
		t.Errorf("bash timeout: data %#v; want timed_out and the output so far", res.Data)
	}
}

// Data is the same in every execution mode, and in call order.
func TestResultDataInEveryMode(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	searchTree(e)
	var calls []core.Call
	for i := range 12 {
		args := []map[string]any{
			{"pattern": "TODO", "head_limit": 1 + i%3, "offset": i % 4},
			{"pattern": "**/*", "limit": 1 + i},
		}[i%2]
		raw, _ := json.Marshal(args)
		calls = append(calls, core.Call{Name: []string{"grep", "glob"}[i%2], Args: raw})
	}
	var want []string
	for _, c := range calls {
		res, _ := e.exec.InvokeTool(context.Background(), c.Name, c.Args)
		want = append(want, dataJSON(t, res))
	}
	for _, mode := range []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed} {
		results := e.exec.ExecuteAll(context.Background(), calls, executor.InMode(mode))
		for i, res := range results {
			if got := dataJSON(t, res); got != want[i] {
				t.Errorf("%s: call %d: data %s, want %s", mode, i, got, want[i])
			}
		}
	}
}
