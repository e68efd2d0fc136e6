package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// imageOutput is a custom BlockCarrier with a String method.
type imageOutput struct{ caption string }

func (o imageOutput) ToolBlocks() []core.Block {
	return []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}
}
func (o imageOutput) String() string { return o.caption }

// blocksOnly is a BlockCarrier without a String method.
type blocksOnly struct{}

func (blocksOnly) ToolBlocks() []core.Block { return []core.Block{{Type: "text", Text: "t"}} }

func TestOutputMapping(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	cases := []struct {
		name    string
		out     any
		forLLM  string
		forUser string
		display string
		silent  bool
		blocks  int
	}{
		{"string", "plain <b>&</b>", "plain <b>&</b>", "", "plain <b>&</b>", false, 0},
		{"bytes", []byte("raw bytes"), "raw bytes", "", "raw bytes", false, 0},
		{"nil", nil, "", "", "", false, 0},
		{"dual", core.DualToolOutput{ForLLM: "3 files", ForUser: "a.go\nb.go\nc.go"}, "3 files", "a.go\nb.go\nc.go", "a.go\nb.go\nc.go", false, 0},
		{"dual pointer", &core.DualToolOutput{ForLLM: "m", ForUser: "u"}, "m", "u", "u", false, 0},
		{"silent", core.SilentResult{ForLLM: "for the model"}, "for the model", "", "for the model", true, 0},
		{"silent pointer", &core.SilentResult{ForLLM: "s"}, "s", "", "s", true, 0},
		{"block output", core.BlockOutput{Text: "see image", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{1}}}}, "see image", "", "see image", false, 1},
		{"custom carrier", imageOutput{caption: "a chart"}, "a chart", "", "a chart", false, 1},
		{"carrier without String", blocksOnly{}, "", "", "", false, 1},
		{"raw JSON kept byte for byte", json.RawMessage(`{ "z" : 1, "a":[2] }`), `{ "z" : 1, "a":[2] }`, "", `{ "z" : 1, "a":[2] }`, false, 0},
		{"map sorted, no HTML escaping", map[string]any{"zeta": 1, "alpha": "<a&b>", "mid": []any{true, nil}}, `{"alpha":"<a&b>","mid":[true,null],"zeta":1}`, "", "", false, 0},
		{"struct", point{1, 2}, `{"x":1,"y":2}`, "", "", false, 0},
		{"slice", []int{3, 1}, `[3,1]`, "", "", false, 0},
		{"number", 42, `42`, "", "", false, 0},
		{"bool", true, `true`, "", "", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { return c.out, nil }}
			exec := newExec(t, []core.Tool{tool})
			res, err := exec.InvokeTool(context.Background(), "t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.ForLLM != c.forLLM || res.ForUser != c.forUser || res.Silent != c.silent || len(res.Blocks) != c.blocks {
				t.Fatalf("got ForLLM %q ForUser %q Silent %v %d blocks; want %q %q %v %d",
					res.ForLLM, res.ForUser, res.Silent, len(res.Blocks), c.forLLM, c.forUser, c.silent, c.blocks)
			}
			display := c.display
			if display == "" {
				display = c.forLLM
			}
			if res.Display() != display {
				t.Fatalf("Display() = %q, want %q", res.Display(), display)
			}
		})
	}
}

func TestUnencodableOutputFails(t *testing.T) {
	for name, out := range map[string]any{
		"channel":  make(chan int),
		"function": func() {},
		"NaN":      math.NaN(),
		"nested":   map[string]any{"f": math.Inf(1)},
	} {
		t.Run(name, func(t *testing.T) {
			tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { return out, nil }}
			exec := newExec(t, []core.Tool{tool})
			var afterSaw core.Kind
			must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
				afterSaw = res.Kind()
				return nil
			}}))
			res, err := exec.InvokeTool(context.Background(), "t", nil)
			wantKind(t, res, core.KindFailed)
			if afterSaw != core.KindFailed {
				t.Fatalf("after hook saw %q", afterSaw)
			}
			if !strings.Contains(err.Error(), "JSON") {
				t.Fatalf("message %q should say the output could not be encoded as JSON", err)
			}
			var e *core.Error
			if !errors.As(err, &e) || e.Err == nil {
				t.Fatalf("error %v does not keep the encoding error as its cause", err)
			}
		})
	}
}

// dataError is a tool's error that carries data.
type dataError struct{ code int }

func (e *dataError) Error() string { return fmt.Sprintf("exited with code %d", e.code) }
func (e *dataError) ToolData() any { return map[string]any{"exit_code": e.code} }

// The executor sets Data from a successful output and from a failure
// that carries it, wrapped or not; data that cannot be encoded fails the
// successful call and is dropped from the failed one.
func TestOutputData(t *testing.T) {
	fn := func(out any, err error) core.ToolFunc {
		return func(ctx context.Context, args json.RawMessage) (any, error) { return out, err }
	}
	ex := newExec(t, []core.Tool{
		{Name: "ok", Func: fn(core.DataOutput{Text: "t", Data: map[string]any{"n": 1}}, nil)},
		{Name: "fails", Func: fn(nil, fmt.Errorf("bash: %w", &dataError{3}))},
		{Name: "bad", Func: fn(core.DataOutput{Text: "t", Data: math.NaN()}, nil)},
		{Name: "badfail", Func: fn(nil, &nanError{})},
		{Name: "plain", Func: fn("text", nil)},
	})
	res, _ := ex.InvokeTool(context.Background(), "ok", nil)
	if !res.OK() || res.ForLLM != "t" || fmt.Sprint(res.Data) != "map[n:1]" {
		t.Errorf("ok: %v %q %#v", res.Err, res.ForLLM, res.Data)
	}
	if _, isInt64 := res.Data.(map[string]any)["n"].(int64); !isInt64 {
		t.Errorf("ok: n is %T, want int64", res.Data.(map[string]any)["n"])
	}
	res, _ = ex.InvokeTool(context.Background(), "fails", nil)
	wantKind(t, res, core.KindFailed)
	if fmt.Sprint(res.Data) != "map[exit_code:3]" {
		t.Errorf("fails: data %#v", res.Data)
	}
	res, _ = ex.InvokeTool(context.Background(), "bad", nil)
	wantKind(t, res, core.KindFailed)
	if res.Data != nil || !strings.Contains(res.Err.Error(), "cannot encode tool data") {
		t.Errorf("bad: %v, data %#v", res.Err, res.Data)
	}
	res, _ = ex.InvokeTool(context.Background(), "badfail", nil)
	wantKind(t, res, core.KindFailed)
	if res.Data != nil || res.Err.Error() != "nan" {
		t.Errorf("badfail: %v, data %#v", res.Err, res.Data)
	}
	res, _ = ex.InvokeTool(context.Background(), "plain", nil)
	if res.Data != nil {
		t.Errorf("plain: data %#v, want nil", res.Data)
	}
}

type nanError struct{}

func (*nanError) Error() string { return "nan" }
func (*nanError) ToolData() any { return math.NaN() }
