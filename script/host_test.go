package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// goFunc is a Func written in Go, standing in for a script function.
type goFunc struct {
	name string
	fn   func(ctx context.Context, args ...any) (any, error)
}

func (f goFunc) Name() string { return f.name }

// Call decodes RawJSON arguments into JSON shapes, as a binding decodes
// them into its own values.
func (f goFunc) Call(ctx context.Context, args ...any) (any, error) {
	for i, a := range args {
		if raw, ok := a.(RawJSON); ok {
			v, err := DecodeAs[any](raw.Text, raw.Root, Shapes{})
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
	}
	return f.fn(ctx, args...)
}

func ret(name string, v any) goFunc {
	return goFunc{name, func(context.Context, ...any) (any, error) { return v, nil }}
}

func newTestHost(t *testing.T) (*Host, *executor.Executor, *bytes.Buffer) {
	t.Helper()
	ex := executor.New(nil)
	var buf bytes.Buffer
	return NewHost(ex, &buf), ex, &buf
}

func invoke(t *testing.T, ex *executor.Executor, name, args string) *core.Result {
	t.Helper()
	res, _ := ex.InvokeTool(context.Background(), name, json.RawMessage(args))
	return res
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDefineToolOutputs: what a script function returns becomes the
// tool's output.
func TestDefineToolOutputs(t *testing.T) {
	h, ex, _ := newTestHost(t)
	failed := &ResultInfo{R: &core.Result{Err: &core.Error{Kind: core.KindTimeout, Message: "inner timed out"}}}
	blocks := &ResultInfo{R: &core.Result{ForLLM: "pic", Blocks: []core.Block{{Type: "image", Data: []byte{1}}}}}
	for _, tc := range []struct {
		name    string
		out     any
		forLLM  string
		forUser string
		silent  bool
		blocks  int
		errKind core.Kind
		errMsg  string
	}{
		{name: "nil", out: nil, forLLM: ""},
		{name: "string", out: "text", forLLM: "text"},
		{name: "int", out: int64(7), forLLM: "7"},
		{name: "map", out: map[string]any{"b": int64(1), "a": "<&>"}, forLLM: `{"a":"<&>","b":1}`},
		{name: "list", out: []any{1.5, nil}, forLLM: `[1.5,null]`},
		{name: "dual", out: core.DualToolOutput{ForLLM: "m", ForUser: "p"}, forLLM: "m", forUser: "p"},
		{name: "silent", out: core.SilentResult{ForLLM: "q"}, forLLM: "q", silent: true},
		{name: "result_ok", out: &ResultInfo{R: &core.Result{ForLLM: "passed"}}, forLLM: "passed"},
		{name: "result_dual", out: &ResultInfo{R: &core.Result{ForLLM: "m", ForUser: "p"}}, forLLM: "m", forUser: "p"},
		{name: "result_silent", out: &ResultInfo{R: &core.Result{ForLLM: "s", Silent: true}}, forLLM: "s", silent: true},
		{name: "result_blocks", out: blocks, forLLM: "pic", blocks: 1},
		{name: "result_err", out: failed, errKind: core.KindFailed, errMsg: "inner timed out"},
		{name: "deny", out: Verdict{Verdict: core.VerdictDeny, Reason: "no"}, errKind: core.KindFailed, errMsg: `deny("no") is for hooks and middleware; a tool reports failure by raising an error`},
		{name: "rewrite", out: Verdict{Args: "{}"}, errKind: core.KindFailed, errMsg: "rewrite(...) is for before hooks"},
		{name: "nan", out: map[string]any{"x": math.NaN()}, errKind: core.KindFailed, errMsg: `tool output: ["x"]: NaN is not a finite number`},
		{name: "chan", out: make(chan int), errKind: core.KindFailed, errMsg: "tool output: a Go chan int is not a JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustNil(t, h.DefineTool(ToolSpec{Name: "out_" + tc.name, Fn: ret(tc.name, tc.out)}))
			res := invoke(t, ex, "out_"+tc.name, "")
			if tc.errKind != "" {
				if res.Kind() != tc.errKind || !strings.Contains(res.Err.Error(), tc.errMsg) {
					t.Fatalf("got %v (%s), want %s containing %q", res.Err, res.Kind(), tc.errKind, tc.errMsg)
				}
				return
			}
			if res.Err != nil || res.ForLLM != tc.forLLM || res.ForUser != tc.forUser || res.Silent != tc.silent || len(res.Blocks) != tc.blocks {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

// TestDefineToolSpec: the spec's fields reach the registry; the function
// gets the decoded arguments and the call's context.
func TestDefineToolSpec(t *testing.T) {
	h, ex, _ := newTestHost(t)
	type key struct{}
	var gotArgs []any
	var gotCtx any
	fn := goFunc{"f", func(ctx context.Context, args ...any) (any, error) {
		gotArgs, gotCtx = args, ctx.Value(key{})
		return "ok", nil
	}}
	safe := true
	mustNil(t, h.DefineTool(ToolSpec{Name: "t", Description: "d", Fn: fn, ConcurrencySafe: &safe, Idempotent: true,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}))
	tool := ex.Registry().GetTool("t")
	if tool.Description != "d" || !*tool.ConcurrencySafe || !tool.Idempotent ||
		string(tool.Schema().JSON()) != `{"properties":{"n":{"type":"integer"}},"type":"object"}` {
		t.Fatalf("tool = %+v schema %s", tool, tool.Schema().JSON())
	}
	ctx := context.WithValue(context.Background(), key{}, "marker")
	res, err := ex.InvokeTool(ctx, "t", json.RawMessage(`{"n": 3, "f": 1.5, "l": [true]}`))
	if err != nil || res.ForLLM != "ok" {
		t.Fatal(res, err)
	}
	want := []any{map[string]any{"n": int64(3), "f": 1.5, "l": []any{true}}}
	if fmt.Sprint(gotArgs) != fmt.Sprint(want) || gotCtx != "marker" {
		t.Errorf("args %#v ctx %v", gotArgs, gotCtx)
	}

	// A function error fails the call and keeps the cause.
	cause := errors.New("script blew up")
	mustNil(t, h.DefineTool(ToolSpec{Name: "bad", Fn: goFunc{"bad", func(context.Context, ...any) (any, error) { return nil, cause }}}))
	res = invoke(t, ex, "bad", "")
	if res.Kind() != core.KindFailed || !errors.Is(res.Err, cause) {
		t.Errorf("bad: %v", res.Err)
	}

	for _, tc := range []struct {
		spec ToolSpec
		want string
	}{
		{ToolSpec{Name: "t", Fn: fn}, `tool "t" is already registered`},
		{ToolSpec{Name: "x.y", Fn: fn}, `invalid tool name "x.y"`},
		{ToolSpec{Name: "p", Fn: fn, Parameters: map[string]any{"type": "object", "x": math.Inf(1)}}, `parameters: ["x"]: +Inf is not a finite number`},
		{ToolSpec{Name: "p", Fn: fn, Parameters: []any{}}, "parameters must be a JSON Schema object"},
		{ToolSpec{Name: "p", Fn: fn, Parameters: map[string]any{"type": "array"}}, `"type": "object"`},
	} {
		if err := h.DefineTool(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DefineTool(%s): %v, want %q", tc.spec.Name, err, tc.want)
		}
	}
	mustNil(t, h.DefineTool(ToolSpec{Name: "t", Fn: ret("r", "replaced"), Replace: true}))
	if res := invoke(t, ex, "t", ""); res.ForLLM != "replaced" {
		t.Errorf("replace: %+v", res)
	}
}

// TestHostBefore: a before hook's return value decides the call.
func TestHostBefore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		out    any
		err    error
		kind   core.Kind
		output string
		msg    string
	}{
		{name: "none", out: nil, output: `{"a":1}`},
		{name: "rewrite", out: Verdict{Args: `{"b":2}`}, output: `{"b":2}`},
		{name: "deny", out: Verdict{Verdict: core.VerdictDeny, Reason: "policy says no"}, kind: core.KindRejected, msg: `rejected by "deny": policy says no`},
		{name: "error", err: errors.New("hook broke"), kind: core.KindRejected, msg: `rejected by "error": hook broke`},
		{name: "int", out: int64(42), kind: core.KindRejected, msg: `before hook int returned an int; want None, allow(reason?), ask(reason), deny(reason) or rewrite(args)`},
		{name: "str", out: "yes", kind: core.KindRejected, msg: "returned a string"},
		{name: "result", out: &ResultInfo{R: &core.Result{}}, kind: core.KindRejected, msg: "returned a result"},
		{name: "badrewrite", out: Verdict{Args: `[1]`}, kind: core.KindRejected, msg: `"badrewrite" rewrote the arguments badly: arguments must be a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ex, _ := newTestHost(t)
			mustNil(t, h.DefineTool(ToolSpec{Name: "echo", Fn: goFunc{"echo", func(ctx context.Context, args ...any) (any, error) {
				return args[0], nil
			}}}))
			var seen *CallInfo
			mustNil(t, h.Before(goFunc{tc.name, func(ctx context.Context, args ...any) (any, error) {
				seen = args[0].(*CallInfo)
				return tc.out, tc.err
			}}, nil))
			res := invoke(t, ex, "echo", `{"a":1}`)
			if seen == nil || seen.Name != "echo" || seen.Raw != `{"a":1}` || argsOf(seen)["a"] != int64(1) || !strings.HasPrefix(seen.ID, "call_") {
				t.Errorf("hook saw %+v", seen)
			}
			if tc.kind == "" {
				if res.Err != nil || res.ForLLM != tc.output {
					t.Fatalf("got %q, %v; want %q", res.ForLLM, res.Err, tc.output)
				}
				return
			}
			if res.Kind() != tc.kind || !strings.Contains(res.Err.Error(), tc.msg) {
				t.Fatalf("got %v (%s), want %s %q", res.Err, res.Kind(), tc.kind, tc.msg)
			}
		})
	}
	// With tools, a hook is tool-specific.
	h, ex, _ := newTestHost(t)
	mustNil(t, h.DefineTool(ToolSpec{Name: "a", Fn: ret("a", "a")}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "b", Fn: ret("b", "b")}))
	mustNil(t, h.Before(ret("only_a", Verdict{Verdict: core.VerdictDeny, Reason: "a is off"}), []string{"a"}))
	if res := invoke(t, ex, "a", ""); res.Kind() != core.KindRejected {
		t.Errorf("a: %v", res.Err)
	}
	if res := invoke(t, ex, "b", ""); !res.OK() {
		t.Errorf("b: %v", res.Err)
	}
	if err := h.Before(ret("bad", nil), []string{"["}); err == nil {
		t.Error("malformed pattern accepted")
	}
}

// TestHostAfter: after hooks see the call and result; an error fails a
// successful call; the return value is ignored.
func TestHostAfter(t *testing.T) {
	h, ex, _ := newTestHost(t)
	mustNil(t, h.DefineTool(ToolSpec{Name: "t", Fn: ret("t", "out")}))
	var seen []string
	mustNil(t, h.After(goFunc{"log", func(ctx context.Context, args ...any) (any, error) {
		c, r := args[0].(*CallInfo), args[1].(*ResultInfo)
		ok, _ := r.Field("ok")
		kind, _ := r.Field("error_kind")
		seen = append(seen, fmt.Sprintf("%s %v %v %s %v", c.Name, ok, kind, c.Raw, argsOf(c)))
		return "ignored", nil
	}}, nil))
	mustNil(t, h.After(goFunc{"fails", func(ctx context.Context, args ...any) (any, error) {
		return nil, errors.New("audit down")
	}}, []string{"t"}))
	res := invoke(t, ex, "t", `{"k":"v"}`)
	if res.Kind() != core.KindFailed || res.ForLLM != "out" || !strings.Contains(res.Err.Error(), "audit down") {
		t.Errorf("t: %+v", res)
	}
	invoke(t, ex, "nope", `[1]`)
	want := []string{`t true <nil> {"k":"v"} map[k:v]`, `nope false invalid_arguments [1] map[]`}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("seen:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestHostMiddleware: middleware results, denials, errors and next().
func TestHostMiddleware(t *testing.T) {
	h, ex, _ := newTestHost(t)
	mustNil(t, h.DefineTool(ToolSpec{Name: "echo", Fn: goFunc{"echo", func(ctx context.Context, args ...any) (any, error) {
		return args[0], nil
	}}}))
	mw := func(name string, fn func(ctx context.Context, c *CallInfo, next *Next) (any, error)) {
		mustNil(t, h.Middleware(goFunc{name, func(ctx context.Context, args ...any) (any, error) {
			return fn(ctx, args[0].(*CallInfo), args[1].(*Next))
		}}, []string{name + "*"}))
		mustNil(t, ex.Registry().RegisterTools(core.Tool{Name: name, Func: ex.Registry().GetTool("echo").Func}))
	}
	mw("pass", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return next.Call(ctx, nil) })
	mw("args", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		return next.Call(ctx, map[string]any{"new": true})
	})
	mw("badargs", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		return next.Call(ctx, map[string]any{"x": math.Inf(1)})
	})
	mw("output", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		return map[string]any{"replaced": argsOf(c)}, nil
	})
	mw("dual", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		return core.DualToolOutput{ForLLM: "m", ForUser: "p"}, nil
	})
	mw("deny", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		return Verdict{Verdict: core.VerdictDeny, Reason: "stop"}, nil
	})
	mw("fail", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return nil, errors.New("mw error") })
	mw("rewrite", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return Verdict{Args: "{}"}, nil })
	mw("nan", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return math.NaN(), nil })
	mw("none", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return nil, nil })

	for _, tc := range []struct {
		tool, out string
		kind      core.Kind
		msg       string
	}{
		{tool: "pass", out: `{"a":1}`},
		{tool: "args", out: `{"new":true}`},
		{tool: "badargs", kind: core.KindFailed, msg: "+Inf is not a finite number"},
		{tool: "output", out: `{"replaced":{"a":1}}`},
		{tool: "dual", out: "m"},
		{tool: "deny", kind: core.KindRejected, msg: `rejected by "deny": stop`},
		{tool: "fail", kind: core.KindFailed, msg: "mw error"},
		{tool: "rewrite", kind: core.KindFailed, msg: "rewrite(...) is for before hooks"},
		{tool: "nan", kind: core.KindFailed, msg: "tool output: NaN is not a finite number"},
		// None is a forgotten "return next(call)": a failure, not a success.
		{tool: "none", kind: core.KindFailed, msg: "middleware none returned None"},
	} {
		res := invoke(t, ex, tc.tool, `{"a":1}`)
		if tc.kind != "" {
			if res.Kind() != tc.kind || !strings.Contains(res.Err.Error(), tc.msg) {
				t.Errorf("%s: %v (%s), want %s %q", tc.tool, res.Err, res.Kind(), tc.kind, tc.msg)
			}
			var ce *core.Error
			if errors.As(res.Err, &ce) && ce.Hook != tc.tool {
				t.Errorf("%s: Hook = %q", tc.tool, ce.Hook)
			}
			continue
		}
		if res.Err != nil || res.ForLLM != tc.out || res.CallID == "" || res.Tool != tc.tool {
			t.Errorf("%s: %+v", tc.tool, res)
		}
	}

	// A middleware error under a cancelled or expired context is canceled
	// or timeout, not failed.
	mw("ctxlive", func(ctx context.Context, c *CallInfo, next *Next) (any, error) { return "live", ctx.Err() })
	ctx, cancel := context.WithCancel(context.Background())
	res := ex.Invoke(ctx, core.Call{Name: "ctxlive"})
	if !res.OK() {
		t.Fatalf("ctxlive with live context: %v", res.Err)
	}
	// The executor refuses a done context before any middleware runs, so
	// cancel from inside the chain.
	mw("cancelling", func(ctx context.Context, c *CallInfo, next *Next) (any, error) {
		cancel()
		return nil, errors.New("gave up")
	})
	res = ex.Invoke(ctx, core.Call{Name: "cancelling"})
	if res.Kind() != core.KindCanceled || !strings.Contains(res.Err.Error(), "gave up") {
		t.Errorf("cancelling: %v (%s)", res.Err, res.Kind())
	}
	dctx, dcancel := context.WithTimeout(context.Background(), -1)
	defer dcancel()
	errRes := errorResult(dctx, &core.Call{ID: "c1", Name: "n"}, "h", errors.New("x"))
	if errRes.Kind() != core.KindTimeout || errRes.CallID != "c1" || errRes.Tool != "n" {
		t.Errorf("errorResult with deadline: %+v", errRes)
	}
}

// TestHostUseMiddlewareTimeoutRetry: built-in middleware through the host.
func TestHostUseMiddlewareTimeoutRetry(t *testing.T) {
	h, ex, _ := newTestHost(t)
	var runs int
	mustNil(t, h.DefineTool(ToolSpec{Name: "slow", Fn: goFunc{"slow", func(ctx context.Context, args ...any) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "flaky", Idempotent: true, Fn: goFunc{"flaky", func(ctx context.Context, args ...any) (any, error) {
		runs++
		if runs < 2 {
			return nil, errors.New("first try fails")
		}
		return "second try", nil
	}}}))
	tm, err := Timeout(20 * time.Millisecond)
	mustNil(t, err)
	mustNil(t, h.UseMiddleware(tm, []string{"slow"}))
	rm, err := Retry(2, 0)
	mustNil(t, err)
	mustNil(t, h.UseMiddleware(rm, []string{"flaky"}))
	if res := invoke(t, ex, "slow", ""); res.Kind() != core.KindTimeout {
		t.Errorf("slow: %v", res.Err)
	}
	if res := invoke(t, ex, "flaky", ""); res.ForLLM != "second try" || runs != 2 {
		t.Errorf("flaky: %+v runs %d", res, runs)
	}
}

func TestTimeoutRetryArguments(t *testing.T) {
	for _, d := range []time.Duration{0, -5 * time.Millisecond} {
		if _, err := Timeout(d); err == nil || !strings.Contains(err.Error(), "timeout: duration got "+d.String()+", want more than 0") {
			t.Errorf("Timeout(%v): %v", d, err)
		}
	}
	m, err := Timeout(1500 * time.Millisecond)
	if err != nil || m.Name != "timeout(1.5s)" || m.Func == nil {
		t.Errorf("Timeout(1500ms) = %+v, %v", m, err)
	}
	for _, n := range []int{0, -1} {
		if _, err := Retry(n, -1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("retry: attempts got %d, want 1 or more", n)) {
			t.Errorf("Retry(%d): %v", n, err)
		}
	}
	for _, tc := range []struct {
		attempts int
		backoff  time.Duration
		name     string
	}{
		{1, -1, "retry(attempts=1, backoff=100ms)"},
		{4, 0, "retry(attempts=4, backoff=-1ns)"},
		{2, 250 * time.Millisecond, "retry(attempts=2, backoff=250ms)"},
	} {
		m, err := Retry(tc.attempts, tc.backoff)
		if err != nil || m.Name != tc.name {
			t.Errorf("Retry(%d, %v) = %q, %v; want %q", tc.attempts, tc.backoff, m.Name, err, tc.name)
		}
	}
}

func TestRawArgs(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, ""},
		{`{"raw": true}`, `{"raw": true}`},
		{"not json", "not json"}, // the pipeline refuses it, not RawArgs
		{map[string]any{"b": int64(1), "a": nil}, `{"a":null,"b":1}`},
		{[]any{int64(1)}, `[1]`},
	} {
		got, err := RawArgs(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("RawArgs(%#v) = %s, %v", tc.in, got, err)
		}
	}
	if _, err := RawArgs(map[string]any{"f": 1}); err == nil {
		t.Error("RawArgs accepted a Go int")
	}
}

// TestHostInvoke covers InvokeTool and InvokeAll.
func TestHostInvoke(t *testing.T) {
	h, _, _ := newTestHost(t)
	var runs int
	var mu sync.Mutex
	mustNil(t, h.DefineTool(ToolSpec{Name: "echo", Fn: goFunc{"echo", func(ctx context.Context, args ...any) (any, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		return args[0], nil
	}}}))
	rm, _ := Retry(1, -1)
	mustNil(t, h.UseMiddleware(rm, nil))

	r, err := h.InvokeTool(context.Background(), "echo", map[string]any{"a": []any{int64(1)}}, "")
	if err != nil || r.R.ForLLM != `{"a":[1]}` {
		t.Fatal(r, err)
	}
	r, err = h.InvokeTool(context.Background(), "echo", `{"raw":1}`, "")
	if err != nil || r.R.ForLLM != `{"raw":1}` {
		t.Fatal(r, err)
	}
	r, err = h.InvokeTool(context.Background(), "echo", "[1]", "")
	if err != nil || r.R.Kind() != core.KindInvalidArguments {
		t.Fatal(r, err)
	}
	_, err = h.InvokeTool(context.Background(), "echo", map[string]any{"a": []any{int64(1), map[string]any{"b": 1}}}, "")
	if err == nil || err.Error() != `args["a"][1]["b"]: a Go int is not a JSON value` {
		t.Errorf("bad nested args: %v", err)
	}
	_, err = h.InvokeTool(context.Background(), "echo", 3.5i, "")
	if err == nil || err.Error() != "args: a Go complex128 is not a JSON value" {
		t.Errorf("bad root args: %v", err)
	}
	// dedup keys reach the pipeline.
	before := runs
	for i := 0; i < 3; i++ {
		r, err = h.InvokeTool(context.Background(), "echo", map[string]any{"i": int64(i)}, "same")
		if err != nil || r.R.ForLLM != `{"i":0}` {
			t.Fatalf("dedup %d: %v %v", i, r.R, err)
		}
	}
	if runs-before != 1 {
		t.Errorf("dedup key ran the tool %d times", runs-before)
	}

	// InvokeAll: order, configured mode, errors.
	specs := []CallSpec{
		{Name: "echo", Args: map[string]any{"n": int64(1)}},
		{Name: "echo", Args: `{"n":2}`},
		{Name: "missing"},
		{Name: "echo", Args: map[string]any{"n": int64(4)}, DedupKey: "k4"},
	}
	for _, mode := range []string{"", "serial", "parallel", "mixed"} {
		for _, conc := range []int{-1, 0, 2} {
			rs, err := h.InvokeAll(context.Background(), specs, mode, conc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				if r.R.Err != nil {
					got = append(got, string(r.R.Kind()))
				} else {
					got = append(got, r.R.ForLLM)
				}
			}
			if strings.Join(got, " ") != `{"n":1} {"n":2} unknown_tool {"n":4}` {
				t.Errorf("mode %q conc %d: %v", mode, conc, got)
			}
		}
	}
	if _, err := h.InvokeAll(context.Background(), specs, "bogus", -1); err == nil || !strings.Contains(err.Error(), `unknown execution mode "bogus"`) {
		t.Errorf("bad mode: %v", err)
	}
	_, err = h.InvokeAll(context.Background(), []CallSpec{{Name: "echo"}, {Name: "echo", Args: map[string]any{"x": []any{math.NaN()}}}}, "", -1)
	if err == nil || err.Error() != `call 1 (echo): args["x"][0]: NaN is not a finite number and cannot be JSON` {
		t.Errorf("bad call args: %v", err)
	}
	rs, err := h.InvokeAll(context.Background(), nil, "", -1)
	if err != nil || len(rs) != 0 {
		t.Errorf("empty batch: %v %v", rs, err)
	}
}

// TestHostRegistry covers ToolNames, GetTool and UnregisterTool.
func TestHostRegistry(t *testing.T) {
	h, _, _ := newTestHost(t)
	if got := h.ToolNames(); len(got) != 0 {
		t.Errorf("ToolNames = %v", got)
	}
	unsafe := false
	mustNil(t, h.DefineTool(ToolSpec{Name: "zz", Fn: ret("zz", "")}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "aa", Description: "A", Fn: ret("aa", ""), ConcurrencySafe: &unsafe, Idempotent: true, ReadOnly: true,
		Parameters: map[string]any{"type": "object", "required": []any{"x"}}}))
	if got := strings.Join(h.ToolNames(), ","); got != "aa,zz" {
		t.Errorf("ToolNames = %s", got)
	}
	got := Quote(h.GetTool("aa"))
	if got != `{"concurrency_safe":false,"description":"A","effects":{},"idempotent":true,"name":"aa","parameters":{"required":["x"],"type":"object"},"read_only":true}` {
		t.Errorf("GetTool(aa) = %s", got)
	}
	got = Quote(h.GetTool("zz"))
	if got != `{"concurrency_safe":null,"description":"","effects":{},"idempotent":false,"name":"zz","parameters":{"type":"object"},"read_only":false}` {
		t.Errorf("GetTool(zz) = %s", got)
	}
	if h.GetTool("nope") != nil {
		t.Error("GetTool(nope) != nil")
	}
	mustNil(t, h.UnregisterTool("zz"))
	if err := h.UnregisterTool("zz"); err == nil || !strings.Contains(err.Error(), `not registered: "zz"`) {
		t.Errorf("UnregisterTool twice: %v", err)
	}
	if h.Executor() == nil {
		t.Error("Executor() = nil")
	}
}

func ptr[T any](v T) *T { return &v }

// TestHostConfig covers Config's settings and errors.
func TestHostConfig(t *testing.T) {
	h, ex, _ := newTestHost(t)
	cur, err := h.Config(nil)
	if err != nil || Quote(cur) != `{"concurrency":0,"mode":"serial","offload":0,"permissions":"default","secret_files":[],"validate_arguments":false}` {
		t.Fatalf("Config() = %v, %v", cur, err)
	}
	cur, err = h.Config(map[string]any{"mode": "Parallel", "concurrency": int64(3), "validate_arguments": true, "offload": int64(64)})
	if err != nil || Quote(cur) != `{"concurrency":3,"mode":"parallel","offload":64,"permissions":"default","secret_files":[],"validate_arguments":true}` {
		t.Fatalf("Config(all) = %v, %v", cur, err)
	}
	if ex.Mode() != executor.ModeParallel || ex.Concurrency() != 3 || !ex.ValidateArguments() {
		t.Fatal("settings did not reach the executor")
	}
	if ex.Registry().GetTool(executor.ArtifactReadTool) == nil {
		t.Error("offload did not register artifact_read")
	}
	for _, tc := range []struct {
		u    map[string]any
		want string
	}{
		{map[string]any{"mode": "fast"}, `mode: unknown execution mode "fast": want serial, parallel or mixed`},
		{map[string]any{"mode": int64(1)}, `mode: want "serial", "parallel" or "mixed", got an int`},
		{map[string]any{"concurrency": int64(-2)}, "concurrency: got -2, want 0 (the default, 64 at a time) or more"},
		{map[string]any{"concurrency": "4"}, `concurrency: got "4", want 0 (the default, 64 at a time) or more`},
		{map[string]any{"validate_arguments": "yes"}, "validate_arguments: want True or False, got a string"},
		{map[string]any{"offload": int64(-1)}, "offload: got -1, want 0 (off) or a size in bytes"},
		{map[string]any{"permissions": "x"}, `permissions: unknown permissions "x": want default, allow-all or deny-unlisted`},
		{map[string]any{"permissions": true}, `permissions: want "default", "allow-all" or "deny-unlisted", got a bool`},
		{map[string]any{"speed": int64(1)}, `unknown setting "speed"; the settings are concurrency, mode, offload, permissions, secret_files, validate_arguments`},
	} {
		if _, err := h.Config(tc.u); err == nil || err.Error() != tc.want {
			t.Errorf("Config: %v, want %q", err, tc.want)
		}
	}
	cur, _ = h.Config(nil)
	if Quote(cur) != `{"concurrency":3,"mode":"parallel","offload":64,"permissions":"default","secret_files":[],"validate_arguments":true}` {
		t.Errorf("failed Config calls changed settings: %v", Quote(cur))
	}

	// Offload goes to the chosen store.
	store := &countingStore{MemoryStore: executor.NewMemoryStore()}
	h.SetArtifactStore(store)
	_, err = h.Config(map[string]any{"offload": int64(10)})
	mustNil(t, err)
	mustNil(t, h.DefineTool(ToolSpec{Name: "big", Fn: ret("big", strings.Repeat("x", 100))}))
	res := invoke(t, ex, "big", "")
	if res.Artifact == nil || res.Artifact.Size != 100 || store.puts != 1 {
		t.Errorf("offload: artifact %+v, puts %d", res.Artifact, store.puts)
	}
	_, err = h.Config(map[string]any{"offload": int64(0)})
	mustNil(t, err)
	if res := invoke(t, ex, "big", ""); res.Artifact != nil || len(res.ForLLM) != 100 {
		t.Errorf("offload off: %+v", res)
	}
}

// TestHostConfigAllOrNothing: Config with one bad field must change
// nothing ("bad input ... loses nothing"); today the fields before the bad
// one are applied (mode before concurrency, validation before offload).
// Settings added by whoever wires the host take part in config() like the
// executor's own, all or nothing.
func TestHostAddSetting(t *testing.T) {
	h, ex, _ := newTestHost(t)
	backend := "native"
	h.AddSetting("grep_backend", Setting{
		Get: func() any { return backend },
		Check: func(v any) error {
			if v != "native" && v != "ripgrep" {
				return fmt.Errorf("want native or ripgrep, got %v", v)
			}
			return nil
		},
		Set: func(v any) { backend = v.(string) },
	})
	cur, err := h.Config(map[string]any{"grep_backend": "ripgrep", "mode": "mixed"})
	if err != nil || cur["grep_backend"] != "ripgrep" || backend != "ripgrep" || ex.Mode() != executor.ModeMixed {
		t.Fatalf("Config = %v, %v; backend %q", cur, err, backend)
	}
	if _, err := h.Config(map[string]any{"grep_backend": "grep", "mode": "serial"}); err == nil || err.Error() != "grep_backend: want native or ripgrep, got grep" {
		t.Fatalf("bad value: %v", err)
	}
	if backend != "ripgrep" || ex.Mode() != executor.ModeMixed {
		t.Errorf("a refused update changed settings: %q, %v", backend, ex.Mode())
	}
}

func TestHostConfigAllOrNothing(t *testing.T) {
	h, ex, _ := newTestHost(t)
	if _, err := h.Config(map[string]any{"mode": "mixed", "concurrency": int64(-1)}); err == nil {
		t.Fatal("no error")
	}
	if ex.Mode() != executor.ModeSerial {
		t.Errorf("failed Config left mode = %v, want serial", ex.Mode())
	}
	if _, err := h.Config(map[string]any{"concurrency": int64(5), "validate_arguments": true, "offload": int64(-1)}); err == nil {
		t.Fatal("no error")
	}
	if ex.Concurrency() != 0 || ex.ValidateArguments() {
		t.Errorf("failed Config left concurrency = %d, validate = %v; want 0, false", ex.Concurrency(), ex.ValidateArguments())
	}
}

type countingStore struct {
	*executor.MemoryStore
	mu   sync.Mutex
	puts int
}

func (s *countingStore) Put(ctx context.Context, data []byte) (core.ArtifactRef, error) {
	s.mu.Lock()
	s.puts++
	s.mu.Unlock()
	return s.MemoryStore.Put(ctx, data)
}

// TestHostPrint: lines from concurrent calls never interleave; a nil
// writer discards.
func TestHostPrint(t *testing.T) {
	var buf bytes.Buffer
	h := NewHost(executor.New(nil), &buf)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				h.Print(fmt.Sprintf("g%d-%s", g, strings.Repeat("x", 200)))
			}
		}(g)
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if len(l) != 203 || !strings.HasSuffix(l, strings.Repeat("x", 200)) {
			t.Fatalf("interleaved line %q", l)
		}
	}
	NewHost(executor.New(nil), nil).Print("discarded")
}

// sourced is a Func that says where it was defined.
type sourced struct{ goFunc }

func (sourced) Source() string { return "policy.star:7" }

// TestHookSource: the hooks and middleware of a Func that is a Sourcer
// carry its source, also under another name; others have none.
func TestHookSource(t *testing.T) {
	fn := sourced{goFunc{"f", func(context.Context, ...any) (any, error) { return nil, nil }}}
	if got := sourceOf(Named(fn, "renamed")); got != "policy.star:7" {
		t.Errorf("sourceOf(Named(...)) = %q, want policy.star:7", got)
	}
	if got := sourceOf(fn.goFunc); got != "" {
		t.Errorf("sourceOf(a Func without a source) = %q, want \"\"", got)
	}
	h, ex, _ := newTestHost(t)
	mustNil(t, h.DefineTool(ToolSpec{Name: "t", Fn: ret("t", "ok")}))
	mustNil(t, h.Before(Named(fn, "b"), nil))
	r := ex.Invoke(context.Background(), core.Call{Name: "t"})
	if len(r.Decisions) == 0 || r.Decisions[0].Hook != "b" || r.Decisions[0].Source != "policy.star:7" {
		t.Errorf("records %+v, want the first from b at policy.star:7", r.Decisions)
	}
}
