package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

func TestListAnnotations(t *testing.T) {
	ex := newExec(t,
		textTool("bash", "ran", false),
		textTool("read_file", "text", true),
		textTool("fetch", "page", false),
		core.Tool{Name: "greet", Description: "greets", Idempotent: true, ReadOnly: true,
			Parameters: json.RawMessage(`{"properties": {"name": {"type": "string"}}, "required": ["name"]}`),
			Func:       func(context.Context, json.RawMessage) (any, error) { return "hi", nil }},
		textTool("mystery", "?", false),
	)
	cs := connect(t, newServer(t, ex, Options{}), nil)
	tools := listed(t, cs)
	if len(tools) != 5 {
		t.Fatalf("got %d tools, want 5: %v", len(tools), tools)
	}
	wire := func(name string) string {
		b, _ := json.Marshal(tools[name].Annotations)
		return string(b)
	}
	for name, want := range map[string]string{
		"bash":      `{"destructiveHint":true,"idempotentHint":false,"readOnlyHint":false}`,
		"read_file": `{"idempotentHint":false,"readOnlyHint":true}`,
		"fetch":     `{"destructiveHint":false,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false}`,
		"greet":     `{"idempotentHint":true,"readOnlyHint":true}`,
		"mystery":   `{"idempotentHint":false,"readOnlyHint":false}`,
	} {
		if got := wire(name); got != want {
			t.Errorf("%s annotations: got %s, want %s", name, got, want)
		}
	}
	schema, _ := json.Marshal(tools["greet"].InputSchema)
	if got, want := string(schema), `{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`; got != want {
		t.Errorf("greet inputSchema: got %s, want %s", got, want)
	}
	if tools["greet"].Description != "greets" {
		t.Errorf("greet description: got %q", tools["greet"].Description)
	}
}

func TestCallModelDefaults(t *testing.T) {
	var ran atomic.Int32
	ex := newExec(t,
		textTool("look", "seen", true),
		core.Tool{Name: "change", Func: func(context.Context, json.RawMessage) (any, error) { ran.Add(1); return "changed", nil }},
	)
	cs := connect(t, newServer(t, ex, Options{}), nil)
	if res := call(t, cs, "look", nil); res.IsError || text(res) != "seen" {
		t.Fatalf("read-only call: got isError %v, %q; want seen", res.IsError, text(res))
	}
	// No elicitation offered: the model's default ask is a refusal.
	res := call(t, cs, "change", map[string]any{})
	if !res.IsError || !strings.HasPrefix(text(res), "error (rejected): ") || !strings.Contains(text(res), "needs approval") {
		t.Fatalf("non-read-only call: got isError %v, %q; want a rejected needs approval result", res.IsError, text(res))
	}
	if ran.Load() != 0 {
		t.Fatal("the refused tool ran")
	}
}

func TestCallFallbackApprover(t *testing.T) {
	ex := newExec(t, textTool("change", "changed", false))
	s := newServer(t, ex, Options{Fallback: core.ApproverFunc(func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{Verdict: core.VerdictAllow}, nil
	})})
	cs := connect(t, s, nil)
	if res := call(t, cs, "change", nil); res.IsError || text(res) != "changed" {
		t.Fatalf("got isError %v, %q; want the fallback to allow", res.IsError, text(res))
	}
}

func TestElicitation(t *testing.T) {
	var ran atomic.Int32
	ex := newExec(t, core.Tool{Name: "change", Func: func(_ context.Context, args json.RawMessage) (any, error) {
		ran.Add(1)
		return "changed " + string(args), nil
	}})
	s := newServer(t, ex, Options{})
	var action atomic.Value
	var asked atomic.Value
	cs := connect(t, s, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Store(req.Params.Message)
		a := action.Load().(string)
		if a == "fail" {
			return nil, errors.New("the client broke")
		}
		return &sdk.ElicitResult{Action: a}, nil
	}})
	action.Store("accept")
	if res := call(t, cs, "change", map[string]any{"x": 1}); res.IsError || text(res) != `changed {"x":1}` {
		t.Fatalf("accepted: got isError %v, %q", res.IsError, text(res))
	}
	if m, _ := asked.Load().(string); !strings.Contains(m, "change") || !strings.Contains(m, `{"x":1}`) {
		t.Errorf("the elicitation message %q names neither the tool nor its arguments", m)
	}
	for _, c := range []struct{ action, want string }{
		{"decline", "declined by the client's user"},
		{"cancel", "cancelled by the client's user"},
		{"fail", "asking the client for approval failed"},
	} {
		action.Store(c.action)
		res := call(t, cs, "change", nil)
		if !res.IsError || !strings.HasPrefix(text(res), "error (rejected): ") || !strings.Contains(text(res), c.want) {
			t.Errorf("%s: got isError %v, %q; want a rejection with %q", c.action, res.IsError, text(res), c.want)
		}
	}
	if ran.Load() != 1 {
		t.Fatalf("the tool ran %d times, want once (accepted only)", ran.Load())
	}
}

func TestResults(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	ex := newExec(t,
		core.Tool{Name: "boom", ReadOnly: true, Func: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("disk on fire") }},
		core.Tool{Name: "picture", ReadOnly: true, Func: func(context.Context, json.RawMessage) (any, error) {
			return core.BlockOutput{Text: "a picture", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: png}}}, nil
		}},
		core.Tool{Name: "typed", ReadOnly: true, Parameters: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer"}}}`),
			Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }},
	)
	cs := connect(t, newServer(t, ex, Options{}), nil)

	res := call(t, cs, "boom", nil)
	if !res.IsError || text(res) != "error (failed): disk on fire" {
		t.Errorf("failure: got isError %v, %q; want error (failed): disk on fire", res.IsError, text(res))
	}
	res = call(t, cs, "typed", map[string]any{"n": "seven"})
	if !res.IsError || !strings.HasPrefix(text(res), "error (invalid_arguments): ") {
		t.Errorf("bad arguments: got isError %v, %q; want invalid_arguments", res.IsError, text(res))
	}
	res = call(t, cs, "picture", nil)
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("picture: got isError %v, %d parts; want text and image", res.IsError, len(res.Content))
	}
	img, ok := res.Content[1].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
		t.Errorf("picture: got %#v, want the PNG bytes as image/png", res.Content[1])
	}
	if text(res) != "a picture" {
		t.Errorf("picture text: got %q", text(res))
	}
	if _, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "nonesuch"}); err == nil || !strings.Contains(err.Error(), "nonesuch") {
		t.Errorf("unknown tool: got %v, want a protocol error naming it", err)
	}
}

func TestOffload(t *testing.T) {
	big := strings.Repeat("0123456789", 500)
	ex := newExec(t, textTool("big", big, true))
	if err := ex.SetArtifactOffload(executor.NewMemoryStore(), 1000); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, ex, Options{}), nil)
	if _, ok := listed(t, cs)[executor.ArtifactReadTool]; !ok {
		t.Fatal("artifact_read is not listed")
	}
	out := text(call(t, cs, "big", nil))
	if len(out) >= len(big) || !strings.Contains(out, "artifact_read") {
		t.Fatalf("got %d bytes %.200q, want a reference to an artifact", len(out), out)
	}
	i := strings.Index(out, `{"id": "`)
	var ref struct{ ID string }
	if err := json.Unmarshal([]byte(out[i:strings.Index(out[i:], "}")+i+1]), &ref); err != nil {
		t.Fatalf("no id in %q: %v", out, err)
	}
	var got strings.Builder
	for off := 0; off < len(big); {
		page := text(call(t, cs, executor.ArtifactReadTool, map[string]any{"id": ref.ID, "offset": off, "limit": 4096}))
		body, _, _ := strings.Cut(page, "\n[")
		if body == "" {
			t.Fatalf("empty page at %d: %q", off, page)
		}
		got.WriteString(body)
		off += len(body)
	}
	if got.String() != big {
		t.Fatalf("artifact_read gave back %d bytes that differ from the %d of the output", got.Len(), len(big))
	}
}
