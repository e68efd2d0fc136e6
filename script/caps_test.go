package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// wantCut checks that got is the first MaxOutputBytes (or max) bytes of a
// text of n bytes, followed by a line saying so.
func wantCut(t *testing.T, what, got string, n, limit int) {
	t.Helper()
	marker := fmt.Sprintf("cut: %d bytes in all, the first %d above", n, limit)
	if len(got) > limit+200 || !strings.Contains(got, marker) || !strings.HasPrefix(got, "xxxx") {
		t.Errorf("%s: %d bytes, ending %q; want %d bytes and a line with %q", what, len(got), got[max(0, len(got)-150):], limit, marker)
	}
}

type scriptErr struct{ msg string }

func (e *scriptErr) Error() string { return e.msg }

// TestOutputIsBounded: the outputs and error messages a host builds from a
// script are cut to MaxOutputBytes and MaxErrorBytes with a marker.
func TestOutputIsBounded(t *testing.T) {
	h, ex, _ := newTestHost(t)
	huge := strings.Repeat("x", MaxOutputBytes+1000)
	hugeErr := strings.Repeat("x", MaxErrorBytes+1000)
	mustNil(t, h.DefineTool(ToolSpec{Name: "big", Fn: ret("big", huge)}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "dual", Fn: ret("dual", core.DualToolOutput{ForLLM: huge, ForUser: huge})}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "silent", Fn: ret("silent", core.SilentResult{ForLLM: huge})}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "json", Fn: ret("json", []any{huge})}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "small", Fn: ret("small", "ok")}))
	mustNil(t, h.DefineTool(ToolSpec{Name: "fails", Fn: goFunc{"fails", func(context.Context, ...any) (any, error) {
		return nil, &scriptErr{hugeErr}
	}}}))

	res := invoke(t, ex, "big", `{}`)
	wantCut(t, "string output", res.ForLLM, len(huge), MaxOutputBytes)
	res = invoke(t, ex, "dual", `{}`)
	wantCut(t, "dual for the model", res.ForLLM, len(huge), MaxOutputBytes)
	wantCut(t, "dual for the person", res.ForUser, len(huge), MaxOutputBytes)
	res = invoke(t, ex, "silent", `{}`)
	wantCut(t, "silent", res.ForLLM, len(huge), MaxOutputBytes)
	if !res.Silent {
		t.Error("silent output lost its silence")
	}
	res = invoke(t, ex, "json", `{}`)
	if !strings.HasPrefix(res.ForLLM, `["xxx`) || !strings.Contains(res.ForLLM, fmt.Sprintf("cut: %d bytes in all", len(huge)+4)) {
		t.Errorf("JSON output: %d bytes ending %q", len(res.ForLLM), res.ForLLM[len(res.ForLLM)-100:])
	}
	if res := invoke(t, ex, "small", `{}`); res.ForLLM != "ok" {
		t.Errorf("small output = %q", res.ForLLM)
	}
	res = invoke(t, ex, "fails", `{}`)
	wantCut(t, "error", res.Err.Error(), len(hugeErr), MaxErrorBytes)
	var se *scriptErr
	if !errors.As(res.Err, &se) {
		t.Errorf("the cut error does not unwrap to the script's: %T", res.Err)
	}
}

// TestHookErrorsAreBounded: a hook's error or deny reason, and a
// middleware's, are cut to MaxErrorBytes.
func TestHookErrorsAreBounded(t *testing.T) {
	h, ex, _ := newTestHost(t)
	huge := strings.Repeat("x", MaxErrorBytes+1000)
	for _, name := range []string{"deny_before", "raise_before", "deny_mw", "raise_mw", "raise_after"} {
		mustNil(t, h.DefineTool(ToolSpec{Name: name, Fn: ret(name, "ran")}))
	}
	deny := goFunc{"deny", func(context.Context, ...any) (any, error) {
		return Verdict{Verdict: core.VerdictDeny, Reason: huge}, nil
	}}
	raise := goFunc{"raise", func(context.Context, ...any) (any, error) { return nil, errors.New(huge) }}
	mustNil(t, h.Before(deny, []string{"deny_before"}))
	mustNil(t, h.Before(raise, []string{"raise_before"}))
	mustNil(t, h.Middleware(deny, []string{"deny_mw"}))
	mustNil(t, h.Middleware(raise, []string{"raise_mw"}))
	mustNil(t, h.After(raise, []string{"raise_after"}))
	for name, kind := range map[string]core.Kind{"deny_before": core.KindRejected, "raise_before": core.KindRejected,
		"deny_mw": core.KindRejected, "raise_mw": core.KindFailed, "raise_after": core.KindFailed} {
		res := invoke(t, ex, name, `{}`)
		if res.Kind() != kind {
			t.Errorf("%s: kind %q, want %q", name, res.Kind(), kind)
		}
		msg := res.Err.Error()
		if len(msg) > MaxErrorBytes+300 || !strings.Contains(msg, fmt.Sprintf("cut: %d bytes in all", len(huge))) {
			t.Errorf("%s: message of %d bytes, ending %q", name, len(msg), msg[len(msg)-100:])
		}
	}
}

// TestOffloadKeepsWholeOutputs: with offload on, an output over the cap
// goes to the artifact store whole instead of being cut.
func TestOffloadKeepsWholeOutputs(t *testing.T) {
	h, ex, _ := newTestHost(t)
	huge := strings.Repeat("x", MaxOutputBytes+1000)
	mustNil(t, h.DefineTool(ToolSpec{Name: "big", Fn: ret("big", huge)}))
	if _, err := h.Config(map[string]any{"offload": int64(4096)}); err != nil {
		t.Fatal(err)
	}
	res := invoke(t, ex, "big", `{}`)
	if res.Artifact == nil || res.Artifact.Size != int64(len(huge)) {
		t.Fatalf("artifact %+v, want one of %d bytes; output %.200q", res.Artifact, len(huge), res.ForLLM)
	}
	page := invoke(t, ex, executor.ArtifactReadTool, fmt.Sprintf(`{"id": %q, "offset": %d, "limit": 10}`, res.Artifact.ID, len(huge)-10))
	if !strings.HasPrefix(page.ForLLM, "xxxxxxxxxx") {
		t.Errorf("the end of the artifact: %q, %v", page.ForLLM, page.Err)
	}
}

// TestInvokeResultsAreBounded: what scripts see of a result after
// invoke_tool and invoke_all is cut, whatever tool made it; the result the
// pipeline handed out is left as it was.
func TestInvokeResultsAreBounded(t *testing.T) {
	var made []*core.Result
	ex := executor.New(nil, executor.WithOnEnd(func(call *core.Call, res *core.Result) { made = append(made, res) }))
	h := NewHost(ex, nil)
	huge := strings.Repeat("x", MaxOutputBytes+1000)
	mustNil(t, ex.Registry().RegisterTools(
		core.Tool{Name: "go_big", Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			return core.DualToolOutput{ForLLM: huge, ForUser: huge}, nil
		}},
		core.Tool{Name: "go_fails", Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			return nil, errors.New(huge)
		}}))
	r, err := h.InvokeTool(context.Background(), "go_big", nil, "")
	mustNil(t, err)
	out, _ := r.Field("output")
	user, _ := r.Field("for_user")
	wantCut(t, "r.output", out.(string), len(huge), MaxOutputBytes)
	wantCut(t, "r.for_user", user.(string), len(huge), MaxOutputBytes)
	if len(made) != 1 || made[0].ForLLM != huge {
		t.Error("the pipeline's own result was changed")
	}
	rs, err := h.InvokeAll(context.Background(), []CallSpec{{Name: "go_fails"}, {Name: "go_big"}}, "", -1)
	mustNil(t, err)
	msg, _ := rs[0].Field("error")
	if !strings.Contains(msg.(string), fmt.Sprintf("cut: %d bytes in all", len(huge))) || len(msg.(string)) > MaxOutputBytes+300 {
		t.Errorf("r.error: %d bytes", len(msg.(string)))
	}
	if kind, _ := rs[0].Field("error_kind"); kind != "failed" {
		t.Errorf("r.error_kind = %v", kind)
	}
	out, _ = rs[1].Field("output")
	wantCut(t, "invoke_all output", out.(string), len(huge), MaxOutputBytes)
}

// TestSchemaErrorIsBounded: an invalid_arguments message lists the first
// violations only, however many the arguments have.
func TestSchemaErrorIsBounded(t *testing.T) {
	ex := executor.New(nil)
	ex.SetValidateArguments(true)
	mustNil(t, ex.Registry().RegisterTools(core.Tool{Name: "t",
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":{"type":"integer"}}`),
		Func:       func(ctx context.Context, raw json.RawMessage) (any, error) { return "ran", nil }}))
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s%05d":"v"`, strings.Repeat("k", 100), i)
	}
	b.WriteString("}")
	res := invoke(t, ex, "t", b.String())
	if res.Kind() != core.KindInvalidArguments {
		t.Fatalf("kind %q", res.Kind())
	}
	msg := res.Err.Error()
	if len(msg) > 32<<10 || !strings.HasSuffix(msg, "(and 19980 more violations)") {
		t.Errorf("message of %d bytes, ending %q", len(msg), msg[len(msg)-80:])
	}
	var ce *core.Error
	if !errors.As(res.Err, &ce) || len(ce.Violations) != 20000 {
		t.Errorf("violations kept: %d, want all 20000", len(ce.Violations))
	}
}
