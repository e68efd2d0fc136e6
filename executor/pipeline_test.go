package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestPipelineOrder records every stage of one call and checks the order
// the design fixes: tool before hooks, then registered tool-specific before
// hooks, global before hooks, middleware (first registered outermost), the
// tool, global after hooks, the tool's own after hooks, then registered
// tool-specific after hooks.
func TestPipelineOrder(t *testing.T) {
	var r recorder
	tool := core.Tool{
		Name: "mcp_files",
		Func: func(context.Context, json.RawMessage) (any, error) {
			r.add("tool")
			return "done", nil
		},
		Before: []core.BeforeFunc{r.beforeFunc("Tool.Before#1"), r.beforeFunc("Tool.Before#2")},
		After:  []core.AfterFunc{r.afterFunc("Tool.After#1"), r.afterFunc("Tool.After#2")},
	}
	exec := newExec(t, []core.Tool{tool, okTool("other")},
		executor.WithOnStart(func(*core.Call) { r.add("OnStart") }),
		executor.WithOnEnd(func(*core.Call, *core.Result) { r.add("OnEnd") }),
	)
	// Registration interleaves global and tool-specific hooks on purpose:
	// the stage decides the order, registration order only within a stage.
	must(t, exec.AddBefore(
		core.BeforeHook{Name: "global1", Func: r.beforeFunc("global before 1")},
		core.BeforeHook{Name: "exact", Tools: []string{"mcp_files"}, Func: r.beforeFunc("specific before (exact)")},
		core.BeforeHook{Name: "unrelated", Tools: []string{"other", "zz*"}, Func: r.beforeFunc("WRONG: unrelated before")},
	))
	must(t, exec.AddBefore(
		core.BeforeHook{Name: "glob", Tools: []string{"mc*"}, Func: r.beforeFunc("specific before (glob)")},
		core.BeforeHook{Name: "global2", Func: r.beforeFunc("global before 2")},
	))
	must(t, exec.Use(r.middleware("mw1"), r.middleware("mw-unrelated", "other"), r.middleware("mw2", "mcp_*")))
	must(t, exec.Use(r.middleware("mw3")))
	must(t, exec.AddAfter(
		core.AfterHook{Name: "exact-after", Tools: []string{"mcp_files"}, Func: r.afterFunc("specific after (exact)")},
		core.AfterHook{Name: "global-after1", Func: r.afterFunc("global after 1")},
		core.AfterHook{Name: "unrelated-after", Tools: []string{"other"}, Func: r.afterFunc("WRONG: unrelated after")},
		core.AfterHook{Name: "glob-after", Tools: []string{"mc*"}, Func: r.afterFunc("specific after (glob)")},
		core.AfterHook{Name: "global-after2", Func: r.afterFunc("global after 2")},
	))

	res, err := exec.InvokeTool(context.Background(), "mcp_files", json.RawMessage(`{}`))
	if err != nil || res.ForLLM != "done" {
		t.Fatalf("InvokeTool = %q, %v; want done, nil", res.ForLLM, err)
	}
	want := []string{
		"OnStart",
		"Tool.Before#1", "Tool.Before#2",
		"specific before (exact)", "specific before (glob)",
		"global before 1", "global before 2",
		"mw1 enter", "mw2 enter", "mw3 enter",
		"tool",
		"mw3 exit", "mw2 exit", "mw1 exit",
		"global after 1", "global after 2",
		"Tool.After#1", "Tool.After#2",
		"specific after (exact)", "specific after (glob)",
		"OnEnd",
	}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("pipeline order:\n got  %q\n want %q", got, want)
	}

	// The other tool gets only the global stages and its own middleware.
	r.reset()
	if _, err := exec.InvokeTool(context.Background(), "other", nil); err != nil {
		t.Fatal(err)
	}
	want = []string{
		"OnStart",
		"WRONG: unrelated before",
		"global before 1", "global before 2",
		"mw1 enter", "mw-unrelated enter", "mw3 enter",
		"mw3 exit", "mw-unrelated exit", "mw1 exit",
		"global after 1", "global after 2",
		"WRONG: unrelated after",
		"OnEnd",
	}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("pipeline order for other:\n got  %q\n want %q", got, want)
	}
}

// TestPipelineSnapshot: a hook added while a call runs does not apply to
// that call, only to later ones.
func TestPipelineSnapshot(t *testing.T) {
	var r recorder
	var exec *executor.Executor
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) {
		must(t, exec.AddAfter(core.AfterHook{Name: "late", Func: r.afterFunc("late after")}))
		return "x", nil
	}}
	exec = newExec(t, []core.Tool{tool})
	if _, err := exec.InvokeTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	if got := r.get(); len(got) != 0 {
		t.Fatalf("hook added during a call ran for that call: %q", got)
	}
	if _, err := exec.InvokeTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	if got := r.get(); len(got) != 1 {
		t.Fatalf("hook added earlier ran %d times for the next call, want 1", len(got))
	}
}

func TestRejection(t *testing.T) {
	var r recorder
	var toolRuns int
	tool := core.Tool{
		Name: "rm",
		Func: func(context.Context, json.RawMessage) (any, error) { toolRuns++; return "removed", nil },
		After: []core.AfterFunc{func(_ context.Context, _ *core.Call, res *core.Result) error {
			r.add("Tool.After saw " + string(res.Kind()))
			return nil
		}},
	}
	var logs []executor.LogRecord
	exec := newExec(t, []core.Tool{tool})
	denial := errors.New("deleting is not allowed")
	must(t, exec.AddBefore(
		core.BeforeHook{Name: "first", Func: r.beforeFunc("first")},
		core.BeforeHook{Name: "policy", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			r.add("policy")
			return nil, denial
		}},
		core.BeforeHook{Name: "later", Func: r.beforeFunc("WRONG: later before hook ran")},
	))
	must(t, exec.Use(r.middleware("WRONG: middleware")))
	var afterErr error
	must(t, exec.AddAfter(
		executor.Logging(func(rec executor.LogRecord) { logs = append(logs, rec) }),
		core.AfterHook{Name: "audit", Func: func(_ context.Context, call *core.Call, res *core.Result) error {
			afterErr = res.Err
			r.add("audit saw " + string(res.Kind()) + " for " + call.Name)
			return nil
		}},
		core.AfterHook{Name: "specific", Tools: []string{"rm"}, Func: r.afterFunc("specific after")},
	))

	res, err := exec.InvokeTool(context.Background(), "rm", json.RawMessage(`{"path":"/"}`))
	if err != res.Err {
		t.Fatalf("returned error %v differs from res.Err %v", err, res.Err)
	}
	wantKind(t, res, core.KindRejected)
	if toolRuns != 0 {
		t.Fatalf("rejected call ran the tool %d times", toolRuns)
	}
	want := []string{"first", "policy", "audit saw rejected for rm", "Tool.After saw rejected", "specific after"}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
	if !errors.Is(afterErr, core.ErrRejected) {
		t.Fatalf("after hook saw %v, want a rejected error", afterErr)
	}
	e := asCoreError(t, res.Err)
	if !strings.Contains(e.Error(), "policy") || !strings.Contains(e.Error(), "deleting is not allowed") {
		t.Fatalf("rejection message %q does not name the hook and the reason", e.Error())
	}
	if !strings.Contains(e.Hook, "policy") {
		t.Fatalf("Error.Hook = %q, want it to name policy", e.Hook)
	}
	if !errors.Is(res.Err, denial) {
		t.Fatalf("rejection does not wrap the hook's error")
	}
	if e.CallID == "" || e.CallID != res.CallID || res.Tool != "rm" {
		t.Fatalf("error call ID %q, result call ID %q, tool %q", e.CallID, res.CallID, res.Tool)
	}
	if len(logs) != 1 {
		t.Fatalf("logging sink got %d records, want 1", len(logs))
	}
	if l := logs[0]; l.Outcome != "rejected" || l.Tool != "rm" || l.CallID != res.CallID || !strings.Contains(l.Hook, "policy") {
		t.Fatalf("log record %+v, want outcome rejected for rm by policy", l)
	}
}

// TestToolBeforeHookRejects: the tool's own before hook can reject, and the
// error names it.
func TestToolBeforeHookRejects(t *testing.T) {
	ran := false
	tool := core.Tool{
		Name: "guarded",
		Func: func(context.Context, json.RawMessage) (any, error) { ran = true; return "", nil },
		Before: []core.BeforeFunc{
			func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil },
			func(context.Context, *core.Call) (json.RawMessage, error) { return nil, errors.New("nope") },
		},
	}
	exec := newExec(t, []core.Tool{tool})
	res, _ := exec.InvokeTool(context.Background(), "guarded", nil)
	wantKind(t, res, core.KindRejected)
	if ran {
		t.Fatal("tool ran after its own before hook rejected")
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "guarded") || !strings.Contains(msg, "#2") || !strings.Contains(msg, "nope") {
		t.Fatalf("message %q should name guarded's before hook #2 and the reason", msg)
	}
}

func TestRewrite(t *testing.T) {
	var r recorder
	var toolArgs string
	tool := core.Tool{
		Name:       "read",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path","n"],"additionalProperties":false}`),
		Func: func(_ context.Context, args json.RawMessage) (any, error) {
			toolArgs = string(args)
			return "ok", nil
		},
		Before: []core.BeforeFunc{func(_ context.Context, call *core.Call) (json.RawMessage, error) {
			r.add("Tool.Before saw " + string(call.Args))
			return json.RawMessage(`{"path":"b"}`), nil
		}},
	}
	exec := newExec(t, []core.Tool{tool}, executor.WithValidateArguments(true))
	must(t, exec.AddBefore(
		core.BeforeHook{Name: "specific", Tools: []string{"read"}, Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
			r.add("specific saw " + string(call.Args))
			return json.RawMessage(`{"path":"c","n":1}`), nil
		}},
		core.BeforeHook{Name: "global", Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
			r.add("global saw " + string(call.Args))
			return nil, nil // no opinion keeps the rewrite
		}},
	))
	must(t, exec.Use(core.Middleware{Name: "mw", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
		r.add("middleware saw " + string(call.Args))
		return next(ctx, call)
	}}))
	var afterArgs string
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, call *core.Call, _ *core.Result) error {
		afterArgs = string(call.Args)
		return nil
	}}))

	// The original arguments violate the schema (no n, extra field); only
	// the final rewrite is valid, so validation must see the final one.
	res, err := exec.InvokeTool(context.Background(), "read", json.RawMessage(`{"path":"a","extra":true}`))
	if err != nil {
		t.Fatalf("InvokeTool: %v (validation saw the original arguments?)", err)
	}
	if res.ForLLM != "ok" {
		t.Fatalf("output %q", res.ForLLM)
	}
	want := []string{
		`Tool.Before saw {"path":"a","extra":true}`,
		`specific saw {"path":"b"}`,
		`global saw {"path":"c","n":1}`,
		`middleware saw {"path":"c","n":1}`,
	}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
	if toolArgs != `{"path":"c","n":1}` || afterArgs != toolArgs {
		t.Fatalf("tool saw %s, after hook saw %s; want the final rewrite", toolArgs, afterArgs)
	}

	// A rewrite that the schema refuses fails validation.
	exec2 := newExec(t, []core.Tool{{Name: "read", Parameters: tool.Parameters, Func: tool.Func}}, executor.WithValidateArguments(true))
	must(t, exec2.AddBefore(core.BeforeHook{Name: "bad", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"path":1,"n":1}`), nil
	}}))
	res, _ = exec2.InvokeTool(context.Background(), "read", json.RawMessage(`{"path":"ok","n":1}`))
	wantKind(t, res, core.KindInvalidArguments)
}

func TestRewriteToNonObjectIsRejected(t *testing.T) {
	for _, bad := range []string{`[1]`, `42`, `nul`, `"str"`, `null`, `true`, `{"a":`} {
		t.Run(bad, func(t *testing.T) {
			var r recorder
			tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) {
				r.add("WRONG: tool ran")
				return "", nil
			}}
			exec := newExec(t, []core.Tool{tool})
			must(t, exec.AddBefore(
				core.BeforeHook{Name: "rewriter", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
					return json.RawMessage(bad), nil
				}},
				core.BeforeHook{Name: "next", Func: r.beforeFunc("WRONG: next hook ran")},
			))
			must(t, exec.AddAfter(core.AfterHook{Name: "after", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
				r.add("after " + string(res.Kind()))
				return nil
			}}))
			res, _ := exec.InvokeTool(context.Background(), "t", json.RawMessage(`{}`))
			wantKind(t, res, core.KindRejected)
			if !strings.Contains(res.Err.Error(), "rewriter") {
				t.Fatalf("message %q does not name the hook", res.Err)
			}
			if got := r.get(); !equalStrings(got, []string{"after rejected"}) {
				t.Fatalf("events %q", got)
			}
		})
	}
}

func TestUnknownTool(t *testing.T) {
	var r recorder
	exec := newExec(t, []core.Tool{okTool("read_file"), okTool("write_file")})
	must(t, exec.AddBefore(core.BeforeHook{Name: "log", Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
		r.add("before " + call.Name)
		return nil, nil
	}}))
	must(t, exec.Use(r.middleware("mw")))
	must(t, exec.AddAfter(core.AfterHook{Name: "after", Func: func(_ context.Context, call *core.Call, res *core.Result) error {
		r.add("after " + call.Name + " " + string(res.Kind()))
		return nil
	}}))

	res, err := exec.InvokeTool(context.Background(), "read_fil", nil)
	wantKind(t, res, core.KindUnknownTool)
	if !errors.Is(err, core.ErrUnknownTool) {
		t.Fatalf("errors.Is(err, ErrUnknownTool) = false for %v", err)
	}
	if !strings.Contains(err.Error(), `did you mean "read_file"`) {
		t.Fatalf("message %q has no suggestion", err)
	}
	want := []string{"before read_fil", "mw enter", "mw exit", "after read_fil unknown_tool"}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
	if res.CallID == "" || res.Tool != "read_fil" {
		t.Fatalf("result call ID %q tool %q", res.CallID, res.Tool)
	}

	// Far from every name: no suggestion, the list instead.
	res, _ = exec.InvokeTool(context.Background(), "zzzzzzzzzz", nil)
	wantKind(t, res, core.KindUnknownTool)
	if strings.Contains(res.Err.Error(), "did you mean") || !strings.Contains(res.Err.Error(), "read_file") {
		t.Fatalf("message %q: want the registered names, no suggestion", res.Err)
	}

	// A global hook can deny unknown names.
	r.reset()
	must(t, exec.AddBefore(core.BeforeHook{Name: "deny-unknown", Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
		if call.Tool == nil {
			return nil, errors.New("unknown tools are not allowed")
		}
		return nil, nil
	}}))
	res, _ = exec.InvokeTool(context.Background(), "nope", nil)
	wantKind(t, res, core.KindRejected)
	want = []string{"before nope", "after nope rejected"}
	if got := r.get(); !equalStrings(got, want) {
		t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
	if res, _ := exec.InvokeTool(context.Background(), "read_file", nil); !res.OK() {
		t.Fatalf("known tool refused: %v", res.Err)
	}

	// An empty registry says so.
	res, _ = executor.New(nil).InvokeTool(context.Background(), "x", nil)
	wantKind(t, res, core.KindUnknownTool)
	if !strings.Contains(res.Err.Error(), "no tools") {
		t.Fatalf("message %q", res.Err)
	}
}

func TestArgumentsNotAnObject(t *testing.T) {
	for _, raw := range []string{`[1]`, `nul`, `42`, `{`, `"s"`, `null`, `true`, `{"a":1} x`, `{"a":1}{}`} {
		t.Run(raw, func(t *testing.T) {
			var r recorder
			tool := core.Tool{
				Name:   "t",
				Func:   func(context.Context, json.RawMessage) (any, error) { r.add("WRONG: tool"); return "", nil },
				Before: []core.BeforeFunc{r.beforeFunc("WRONG: Tool.Before")},
			}
			exec := newExec(t, []core.Tool{tool})
			must(t, exec.AddBefore(
				core.BeforeHook{Name: "specific", Tools: []string{"t"}, Func: r.beforeFunc("WRONG: specific before")},
				core.BeforeHook{Name: "global", Func: r.beforeFunc("WRONG: global before")},
			))
			must(t, exec.Use(r.middleware("WRONG: middleware")))
			must(t, exec.AddAfter(core.AfterHook{Name: "after", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
				r.add("after " + string(res.Kind()))
				return nil
			}}))
			res, _ := exec.InvokeTool(context.Background(), "t", json.RawMessage(raw))
			wantKind(t, res, core.KindInvalidArguments)
			if got := r.get(); !equalStrings(got, []string{"after invalid_arguments"}) {
				t.Fatalf("events %q", got)
			}
			if res.CallID == "" {
				t.Fatal("no call ID")
			}
		})
	}
}

func TestEmptyArgumentsMeanEmptyObject(t *testing.T) {
	for _, raw := range []json.RawMessage{nil, {}, json.RawMessage(" \n\t")} {
		var hookSaw, toolSaw string
		tool := core.Tool{
			Name:       "t",
			Parameters: json.RawMessage(`{"type":"object"}`),
			Func: func(_ context.Context, args json.RawMessage) (any, error) {
				toolSaw = string(args)
				return "", nil
			},
		}
		exec := newExec(t, []core.Tool{tool}, executor.WithValidateArguments(true))
		must(t, exec.AddBefore(core.BeforeHook{Name: "h", Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
			hookSaw = string(call.Args)
			return nil, nil
		}}))
		if _, err := exec.InvokeTool(context.Background(), "t", raw); err != nil {
			t.Fatalf("args %q: %v", raw, err)
		}
		if hookSaw != "{}" || toolSaw != "{}" {
			t.Fatalf("args %q: hook saw %q, tool saw %q; want {}", raw, hookSaw, toolSaw)
		}
	}
}

func TestSchemaViolations(t *testing.T) {
	ran := 0
	tool := core.Tool{
		Name: "t",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"a":{"type":"string"},
			"b":{"type":"integer","minimum":0},
			"c":{"type":"array","items":{"type":"string"}}},
			"required":["a","d"]}`),
		Func: func(context.Context, json.RawMessage) (any, error) { ran++; return "ran", nil },
	}
	args := json.RawMessage(`{"c":[1,"x",2],"b":-1,"a":5}`)
	exec := newExec(t, []core.Tool{tool}, executor.WithValidateArguments(true))
	var afterSaw core.Kind
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		afterSaw = res.Kind()
		return nil
	}}))
	var first []core.Violation
	for round := range 5 {
		res, err := exec.InvokeTool(context.Background(), "t", args)
		wantKind(t, res, core.KindInvalidArguments)
		if afterSaw != core.KindInvalidArguments {
			t.Fatalf("after hook saw %q", afterSaw)
		}
		e := asCoreError(t, err)
		var ptrs []string
		for _, v := range e.Violations {
			ptrs = append(ptrs, v.Pointer)
			if v.Message == "" {
				t.Fatalf("violation at %q has no message", v.Pointer)
			}
		}
		wantPtrs := []string{"", "/a", "/b", "/c/0", "/c/2"}
		if !equalStrings(ptrs, wantPtrs) {
			t.Fatalf("violation pointers %q, want %q (all of them, sorted); violations %v", ptrs, wantPtrs, e.Violations)
		}
		if !strings.Contains(e.Violations[0].Message, "d") {
			t.Fatalf("root violation %q should name the missing property d", e.Violations[0].Message)
		}
		for _, p := range wantPtrs[1:] {
			if !strings.Contains(e.Error(), p+":") {
				t.Fatalf("message %q does not list %s", e.Error(), p)
			}
		}
		if round == 0 {
			first = e.Violations
		} else {
			for i := range first {
				if first[i] != e.Violations[i] {
					t.Fatalf("violations differ between runs: %v vs %v", first, e.Violations)
				}
			}
		}
	}
	if ran != 0 {
		t.Fatal("tool ran despite violations")
	}

	exec.SetValidateArguments(false)
	if res, err := exec.InvokeTool(context.Background(), "t", args); err != nil || res.ForLLM != "ran" {
		t.Fatalf("validation off: %q, %v; want the tool to run", res.ForLLM, err)
	}
	if newExec(t, nil).ValidateArguments() {
		t.Fatal("validation should be off by default")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestMalformedHooksRefused(t *testing.T) {
	exec := newExec(t, nil)
	if err := exec.AddBefore(core.BeforeHook{Name: "nil"}); err == nil {
		t.Error("before hook without Func accepted")
	}
	if err := exec.AddAfter(core.AfterHook{Name: "nil"}); err == nil {
		t.Error("after hook without Func accepted")
	}
	if err := exec.Use(core.Middleware{Name: "nil"}); err == nil {
		t.Error("middleware without Func accepted")
	}
	if err := exec.AddBefore(core.BeforeHook{Name: "bad", Tools: []string{"[a"}, Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }}); err == nil {
		t.Error("malformed glob accepted")
	}
	// A refused batch registers nothing.
	var r recorder
	err := exec.AddBefore(
		core.BeforeHook{Name: "good", Func: r.beforeFunc("WRONG: good hook of a refused batch")},
		core.BeforeHook{Name: "bad"},
	)
	if err == nil {
		t.Fatal("batch with a nil hook accepted")
	}
	must(t, exec.Registry().RegisterTools(okTool("t")))
	if _, err := exec.InvokeTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	if got := r.get(); len(got) != 0 {
		t.Fatalf("part of a refused batch was registered: %q", got)
	}
}

func TestAfterHookErrorMarksFailed(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")})
	auditErr := errors.New("audit log full")
	var secondSaw core.Kind
	must(t, exec.AddAfter(
		core.AfterHook{Name: "audit", Func: func(context.Context, *core.Call, *core.Result) error { return auditErr }},
		core.AfterHook{Name: "second", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
			secondSaw = res.Kind()
			return errors.New("second error must not replace the first")
		}},
	))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	wantKind(t, res, core.KindFailed)
	if !errors.Is(res.Err, auditErr) || !strings.Contains(res.Err.Error(), "audit") {
		t.Fatalf("error %v should wrap the audit error and name the hook", res.Err)
	}
	if res.ForLLM != "ok" {
		t.Fatalf("output %q was not kept", res.ForLLM)
	}
	if secondSaw != core.KindFailed {
		t.Fatalf("later after hook saw %q, want failed", secondSaw)
	}
}

func TestMiddlewareCanShortCircuitAndTransform(t *testing.T) {
	ran := 0
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { ran++; return "raw", nil }}
	exec := newExec(t, []core.Tool{tool})
	must(t, exec.Use(
		core.Middleware{Name: "upper", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			res := next(ctx, call)
			res.ForLLM = strings.ToUpper(res.ForLLM)
			return res
		}},
		core.Middleware{Name: "cache", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			if string(call.Args) == `{"cached":true}` {
				return &core.Result{ForLLM: "cached"}
			}
			return next(ctx, call)
		}},
	))
	res, _ := exec.InvokeTool(context.Background(), "t", json.RawMessage(`{"cached":true}`))
	if res.ForLLM != "CACHED" || ran != 0 || res.CallID == "" || res.Tool != "t" {
		t.Fatalf("short circuit: %+v, tool ran %d", res, ran)
	}
	res, _ = exec.InvokeTool(context.Background(), "t", nil)
	if res.ForLLM != "RAW" || ran != 1 {
		t.Fatalf("transform: %q, tool ran %d", res.ForLLM, ran)
	}

	// A middleware that returns nil becomes a failed result, not a crash.
	exec2 := newExec(t, []core.Tool{okTool("t")})
	must(t, exec2.Use(core.Middleware{Name: "broken", Func: func(context.Context, *core.Call, core.Handler) *core.Result { return nil }}))
	res, _ = exec2.InvokeTool(context.Background(), "t", nil)
	wantKind(t, res, core.KindFailed)
	if res.CallID == "" || !strings.Contains(res.Err.Error(), "broken") {
		t.Fatalf("nil from middleware: %+v", res)
	}
}

func TestCallIDsAndSession(t *testing.T) {
	sess := core.NewSession("s1")
	var seen []*core.Session
	exec := newExec(t, []core.Tool{okTool("t")}, executor.WithSession(sess))
	must(t, exec.AddBefore(core.BeforeHook{Name: "h", Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
		seen = append(seen, call.Session)
		return nil, nil
	}}))
	for i := 1; i <= 3; i++ {
		res, _ := exec.InvokeTool(context.Background(), "t", nil)
		if want := "call_" + string(rune('0'+i)); res.CallID != want {
			t.Fatalf("call %d got ID %q, want %q", i, res.CallID, want)
		}
	}
	res := exec.Invoke(context.Background(), core.Call{ID: "mine", Name: "t"})
	if res.CallID != "mine" {
		t.Fatalf("caller's ID not kept: %q", res.CallID)
	}
	for _, s := range seen {
		if s != sess {
			t.Fatal("hook did not see the executor's session")
		}
	}
	if exec.Session() != sess {
		t.Fatal("Session() differs")
	}
}
