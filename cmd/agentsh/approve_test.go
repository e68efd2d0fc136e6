package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// newAskingExecutor has one tool, "save", whose calls the model makes ask
// for approval; approver answers.
func newAskingExecutor(t *testing.T, approver core.Approver) *executor.Executor {
	t.Helper()
	reg := core.NewRegistry()
	err := reg.RegisterTools(core.Tool{Name: "save", Func: func(context.Context, json.RawMessage) (any, error) { return "saved", nil }})
	if err != nil {
		t.Fatal(err)
	}
	e := executor.New(reg, executor.WithApprover(approver))
	t.Cleanup(func() { e.Close() })
	return e
}

// --approve never rejects with what to do; the error is a needs-approval.
func TestApproveNever(t *testing.T) {
	e := newAskingExecutor(t, headlessApprover(approveNever))
	res := e.Invoke(context.Background(), core.Call{Name: "save", Origin: core.OriginModel})
	if res.OK() {
		t.Fatal("the model's call of save ran under --approve never")
	}
	want := "needs approval: the model called save, which is not read-only; allow it in a policy or pass --approve always"
	if res.Err.Error() != want || res.Kind() != core.KindRejected {
		t.Errorf("got %s: %q, want rejected: %q", res.Kind(), res.Err, want)
	}
	if !errors.Is(res.Err, core.ErrNeedsApproval) {
		t.Errorf("%v does not wrap core.ErrNeedsApproval", res.Err)
	}
	if e.Approver() == nil {
		t.Fatal("no approver installed")
	}
	always := newAskingExecutor(t, headlessApprover(approveAlways))
	if res := always.Invoke(context.Background(), core.Call{Name: "save", Origin: core.OriginModel}); !res.OK() || res.ForLLM != "saved" {
		t.Errorf("--approve always: got %v %q, want the call to run", res.Err, res.ForLLM)
	}
	if got := always.ApprovedTools(); len(got) != 0 {
		t.Errorf("--approve always approved %q for the session; it answers each ask on its own", got)
	}
}

// scriptedAnswers answers the prompt from a list; errAborted and io.EOF
// stand for Ctrl-C and the end of input.
func scriptedAnswers(answers ...any) (func(string) (string, error), *[]string) {
	var prompts []string
	return func(p string) (string, error) {
		prompts = append(prompts, p)
		if len(answers) == 0 {
			return "", io.EOF
		}
		a := answers[0]
		answers = answers[1:]
		if err, ok := a.(error); ok {
			return "", err
		}
		return a.(string), nil
	}, &prompts
}

func TestPromptApproverAnswers(t *testing.T) {
	tests := []struct {
		name    string
		answers []any
		want    core.Approval
		prompts int
	}{
		{"y", []any{"y"}, core.Approval{Verdict: core.VerdictAllow, Reason: "approved once at the prompt"}, 1},
		{"yes, spaced and upper case", []any{"  YES "}, core.Approval{Verdict: core.VerdictAllow, Reason: "approved once at the prompt"}, 1},
		{"a", []any{"a"}, core.Approval{Verdict: core.VerdictAllow, Reason: "approved at the prompt for the rest of the session", Always: true}, 1},
		{"n with a reason", []any{"n", " not today "}, core.Approval{Verdict: core.VerdictDeny, Reason: "not today"}, 2},
		{"n without a reason", []any{"no", ""}, core.Approval{Verdict: core.VerdictDeny}, 2},
		{"n, then Ctrl-C at the reason", []any{"n", errAborted}, core.Approval{Verdict: core.VerdictDeny}, 2},
		{"Ctrl-C", []any{errAborted}, core.Approval{Verdict: core.VerdictDeny, Reason: "the user pressed Ctrl-C at the approval prompt"}, 1},
		{"end of input", nil, core.Approval{Verdict: core.VerdictDeny, Reason: "no answer at the approval prompt"}, 1},
		{"an unknown answer asks again", []any{"maybe", "", "y"}, core.Approval{Verdict: core.VerdictAllow, Reason: "approved once at the prompt"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ask, prompts := scriptedAnswers(tt.answers...)
			var out strings.Builder
			p := &promptApprover{ask: ask, out: &out, dir: t.TempDir()}
			req := &core.ApprovalRequest{Call: &core.Call{Name: "bash", Args: json.RawMessage(`{"command":"make"}`), Origin: core.OriginModel},
				Reason: "the model called bash, which is not read-only", Hook: "default"}
			got, err := p.Approve(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if len(*prompts) != tt.prompts {
				t.Errorf("prompted %d times (%q), want %d", len(*prompts), *prompts, tt.prompts)
			}
			for _, want := range []string{"the model wants to run bash", "asked by default: the model called bash", `"command": "make"`} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the request shown lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

// Through the executor: a gives Always, so the next call is not asked;
// n's reason reaches the caller.
func TestPromptApproverInPipeline(t *testing.T) {
	ask, prompts := scriptedAnswers("n", "use the other file", "a")
	e := newAskingExecutor(t, &promptApprover{ask: ask, out: io.Discard})
	ctx := context.Background()
	res := e.Invoke(ctx, core.Call{Name: "save", Origin: core.OriginModel})
	if res.OK() || res.Err.Error() != "not approved: use the other file" {
		t.Fatalf("n: got %v, want not approved: use the other file", res.Err)
	}
	for i := 0; i < 3; i++ {
		if res := e.Invoke(ctx, core.Call{Name: "save", Origin: core.OriginModel}); !res.OK() {
			t.Fatalf("after a: call %d: %v", i, res.Err)
		}
	}
	if len(*prompts) != 3 {
		t.Errorf("prompted %d times, want 3 (n, its reason, a): %q", len(*prompts), *prompts)
	}
}

// Prompts never overlap: a parallel batch's asks wait their turn, and
// each gets its own answer.
func TestPromptApproverSerializes(t *testing.T) {
	var active, overlaps, asked atomic.Int32
	p := &promptApprover{ask: func(string) (string, error) {
		if active.Add(1) > 1 {
			overlaps.Add(1)
		}
		asked.Add(1)
		runtime.Gosched() // give another prompt the chance to overlap
		active.Add(-1)
		return "y", nil
	}, out: io.Discard}
	const n = 32
	var wg sync.WaitGroup
	var allowed atomic.Int32
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := p.Approve(context.Background(), &core.ApprovalRequest{Call: &core.Call{Name: fmt.Sprintf("t%d", i), Args: json.RawMessage(`{}`)}})
			if err == nil && a.Verdict == core.VerdictAllow {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Errorf("%d prompts overlapped another", overlaps.Load())
	}
	if asked.Load() != n || allowed.Load() != n {
		t.Errorf("asked %d times and allowed %d calls, want %d of each", asked.Load(), allowed.Load(), n)
	}
}

// A cancelled call is not put to the person.
func TestPromptApproverCancelled(t *testing.T) {
	ask, prompts := scriptedAnswers("y")
	p := &promptApprover{ask: ask, out: io.Discard}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Approve(ctx, &core.ApprovalRequest{Call: &core.Call{Name: "save"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if len(*prompts) != 0 {
		t.Errorf("prompted %q for a cancelled call", *prompts)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestChangeDiff(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "one\r\ntwo\r\n")
	writeFile(t, filepath.Join(dir, "twice.txt"), "x\nx\n")
	writeFile(t, filepath.Join(dir, "bin"), "a\x00b")
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "do not show\n")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var long strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	tests := []struct {
		name, tool, args string
		want             []string // in the diff, in order
		not              []string
	}{
		{"a new file is all added", "write_file", `{"path":"new/b.txt","content":"hi\nthere\n"}`,
			[]string{"--- /dev/null", "+++ b/new/b.txt", "@@ -0,0 +1,2 @@", "+hi", "+there"}, nil},
		{"a rewrite", "write_file", `{"path":"a.txt","content":"one\n2\nthree\n"}`,
			[]string{"--- a/a.txt", "+++ b/a.txt", " one", "-two", "+2", " three"}, nil},
		{"an edit", "edit_file", `{"path":"a.txt","old_string":"two","new_string":"zwei"}`,
			[]string{"-two", "+zwei"}, []string{"-one"}},
		{"an edit of every match", "edit_file", `{"path":"twice.txt","old_string":"x","new_string":"y","replace_all":true}`,
			[]string{"-x\n-x\n+y\n+y"}, nil},
		{"an edit that matches twice without replace_all", "edit_file", `{"path":"twice.txt","old_string":"x","new_string":"y"}`,
			[]string{"old_string matches 2 times in twice.txt and replace_all is not set; the edit would fail"}, []string{"+y"}},
		{"an edit that does not match", "edit_file", `{"path":"a.txt","old_string":"four","new_string":"4"}`,
			[]string{"old_string is not in a.txt; the edit would fail"}, nil},
		{"an edit of a missing file", "edit_file", `{"path":"nope.txt","old_string":"a","new_string":"b"}`,
			[]string{"nope.txt does not exist; the edit would fail"}, nil},
		{"a CRLF file is edited with CRLF", "edit_file", `{"path":"crlf.txt","old_string":"one\ntwo","new_string":"1\n2"}`,
			[]string{"-one\r\n", "+1\r\n"}, nil},
		{"a quoted path", "write_file", `{"path":"\"a.txt\"","content":"one\n"}`,
			[]string{"--- a/a.txt", "-two"}, nil},
		{"no change", "write_file", `{"path":"a.txt","content":"one\ntwo\nthree\n"}`,
			[]string{"(a.txt would not change)"}, nil},
		{"binary content", "write_file", `{"path":"bin","content":"text"}`,
			[]string{"bin: binary content, 3 bytes before, 4 after"}, nil},
		{"a long diff is cut", "write_file", `{"path":"long.txt","content":` + jsonString(long.String()) + `}`,
			[]string{"+line 0", "more lines of diff not shown"}, []string{"+line 499"}},
		{"a path out of the directory", "write_file", `{"path":"../x","content":"a"}`,
			[]string{"cannot show the change"}, nil},
		{"an absolute path out of the directory", "write_file", `{"path":` + jsonString(filepath.Join(outside, "secret")) + `,"content":"a"}`,
			[]string{"cannot show the change", "is outside the working directory"}, []string{"do not show"}},
		{"a link out of the directory", "write_file", `{"path":"link","content":"a"}`,
			[]string{"cannot show the change"}, []string{"do not show"}},
		{"an absolute path inside", "write_file", `{"path":` + jsonString(filepath.Join(dir, "a.txt")) + `,"content":"one\n"}`,
			[]string{"-two"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := changeDiff(dir, tt.tool, json.RawMessage(tt.args))
			if !ok {
				t.Fatalf("no diff for %s %s", tt.tool, tt.args)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("diff lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("diff has %q:\n%s", w, got)
				}
			}
			if n := strings.Count(got, "\n"); n > maxDiffLines+1 {
				t.Errorf("diff has %d lines, want at most %d", n, maxDiffLines+1)
			}
		})
	}
	for _, args := range []string{`{"path":"a.txt"}`, `{"command":"ls"}`, `not json`} {
		if got, ok := changeDiff(dir, "write_file", json.RawMessage(args)); ok {
			t.Errorf("write_file %s: got a diff %q, want the arguments shown instead", args, got)
		}
	}
	if _, ok := changeDiff(dir, "bash", json.RawMessage(`{"path":"a.txt","content":"x"}`)); ok {
		t.Error("bash got a diff")
	}
}

// A file over the bound is summarized, not read.
func TestChangeDiffLargeFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "big"), strings.Repeat("x", maxDiffInput+1))
	got, _ := changeDiff(dir, "write_file", json.RawMessage(`{"path":"big","content":"small"}`))
	if want := fmt.Sprintf("(big is %d bytes; too large to show as a diff)\n", maxDiffInput+1); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestPromptShowsNoTerminalControls: what the model wrote reaches the
// prompt spelled out, so it cannot clear the screen, redraw a line or
// reorder text to hide what it asks for.
func TestPromptShowsNoTerminalControls(t *testing.T) {
	ask, _ := scriptedAnswers("n", "")
	var out strings.Builder
	p := &promptApprover{ask: ask, out: &out, dir: t.TempDir()}
	content := "ok\n\x1b[2J\x1b[1A\rrm -rf ~\u202e\xff\x9b\u00e9\n"
	args, _ := json.Marshal(map[string]string{"path": "x\x1b]0;t\a.txt", "content": content})
	req := &core.ApprovalRequest{Call: &core.Call{Name: "write_file", Args: args, Origin: core.OriginModel},
		Reason: "why\x1b[8m", Hook: "default"}
	if _, err := p.Approve(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	shown := out.String()
	for _, c := range []string{"\x1b", "\r", "\a", "\u202e", "\x9b", "\xff"} {
		if strings.Contains(shown, c) {
			t.Errorf("the prompt shows %q raw:\n%s", c, shown)
		}
	}
	for _, want := range []string{`+\x1b[2J\x1b[1A\x0drm -rf ~\u202e`, `why\x1b[8m`, "é"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, shown)
		}
	}
}
