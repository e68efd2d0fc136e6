package core_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

type captioned struct{}

func (captioned) ToolBlocks() []core.Block {
	return []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte("png")}}
}
func (captioned) String() string { return "caption" }

func TestSetOutput(t *testing.T) {
	for _, c := range []struct {
		name            string
		v               any
		forLLM, forUser string
		silent          bool
		blocks          int
	}{
		{"string", "hi <&>", "hi <&>", "", false, 0},
		{"bytes", []byte("b"), "b", "", false, 0},
		{"raw", json.RawMessage(`{"b":1,"a":2}`), `{"b":1,"a":2}`, "", false, 0},
		{"nil", nil, "", "", false, 0},
		{"dual", core.DualToolOutput{ForLLM: "l", ForUser: "u"}, "l", "u", false, 0},
		{"*dual", &core.DualToolOutput{ForLLM: "l", ForUser: "u"}, "l", "u", false, 0},
		{"silent", core.SilentResult{ForLLM: "s"}, "s", "", true, 0},
		{"*silent", &core.SilentResult{ForLLM: "s"}, "s", "", true, 0},
		{"blocks", core.BlockOutput{Text: "t", Blocks: []core.Block{{Type: "image"}, {Type: "text", Text: "x"}}}, "t", "", false, 2},
		{"*blocks", &core.BlockOutput{Text: "t", Blocks: []core.Block{{Type: "image"}}}, "t", "", false, 1},
		{"custom carrier", captioned{}, "caption", "", false, 1},
		{"map", map[string]any{"b": []any{1, "<x>"}, "a": map[string]int{"z": 1, "y": 2}}, `{"a":{"y":2,"z":1},"b":[1,"<x>"]}`, "", false, 0},
		{"escaped text", map[string]string{"q": "a\"b\n&"}, `{"q":"a\"b\n&"}`, "", false, 0},
		{"int", 7, "7", "", false, 0},
		{"float", 1.5, "1.5", "", false, 0},
		{"empty slice", []string{}, "[]", "", false, 0},
		{"nil slice", []string(nil), "null", "", false, 0},
	} {
		var r core.Result
		if err := r.SetOutput(c.v); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.ForLLM != c.forLLM || r.ForUser != c.forUser || r.Silent != c.silent || len(r.Blocks) != c.blocks {
			t.Errorf("%s: got %q %q %v %d blocks; want %q %q %v %d", c.name, r.ForLLM, r.ForUser, r.Silent, len(r.Blocks), c.forLLM, c.forUser, c.silent, c.blocks)
		}
	}
}

func TestSetOutputUnencodable(t *testing.T) {
	for name, v := range map[string]any{"chan": make(chan int), "func": func() {}, "nan": math.NaN(), "complex": complex(1, 2)} {
		var r core.Result
		err := r.SetOutput(v)
		if err == nil {
			t.Errorf("%s: SetOutput succeeded with %q", name, r.ForLLM)
			continue
		}
		if !strings.Contains(err.Error(), "JSON") || r.ForLLM != "" {
			t.Errorf("%s: error %q, ForLLM %q", name, err, r.ForLLM)
		}
	}
}

func TestMarshalJSON(t *testing.T) {
	b, err := core.MarshalJSON(map[string]any{"z": "<a href=\"x\">&</a>", "a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":1,"z":"<a href=\"x\">&</a>"}`; string(b) != want {
		t.Fatalf("MarshalJSON = %s, want %s", b, want)
	}
	if strings.HasSuffix(string(b), "\n") {
		t.Fatal("trailing newline")
	}
	if _, err := core.MarshalJSON(make(chan int)); err == nil {
		t.Fatal("channel encoded")
	}
}

func TestResultAccessors(t *testing.T) {
	r := core.Result{ForLLM: "model"}
	if !r.OK() || r.Kind() != "" || r.Display() != "model" {
		t.Fatalf("success: OK %v kind %q display %q", r.OK(), r.Kind(), r.Display())
	}
	r.ForUser = "person"
	if r.Display() != "person" {
		t.Fatalf("Display = %q", r.Display())
	}
	r.Silent = true
	if r.Display() != "person" {
		t.Fatal("Display must ignore Silent")
	}
	r.Err = &core.Error{Kind: core.KindRejected, Message: "no"}
	if r.OK() || r.Kind() != core.KindRejected {
		t.Fatalf("failure: OK %v kind %q", r.OK(), r.Kind())
	}
	r.Err = errors.New("plain")
	if r.Kind() != core.KindFailed {
		t.Fatalf("plain error kind %q", r.Kind())
	}
}

type carrier struct{ d any }

func (c carrier) ToolData() any  { return c.d }
func (c carrier) String() string { return "as text" }

// Data is kept when it already is plain JSON shapes, and otherwise goes
// through its JSON form, so every consumer sees the same shapes.
func TestSetData(t *testing.T) {
	plain := map[string]any{"paths": []any{"a.go"}, "n": int64(2), "f": 1.5, "ok": true, "none": nil}
	var r core.Result
	if err := r.SetOutput(core.DataOutput{Text: "text", Data: plain}); err != nil {
		t.Fatal(err)
	}
	if r.ForLLM != "text" || !reflect.DeepEqual(r.Data, plain) {
		t.Errorf("DataOutput: got %q %#v", r.ForLLM, r.Data)
	}
	if m, _ := r.Data.(map[string]any); m == nil || reflect.ValueOf(m).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Error("plain data was copied; want it kept as it is")
	}

	type match struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	}
	for _, c := range []struct {
		name string
		v    any
		want any
	}{
		{"struct", []match{{"a.go", 3}}, []any{map[string]any{"path": "a.go", "line": int64(3)}}},
		{"int", 7, int64(7)},
		{"integral float", 2.0, int64(2)},
		{"big float", 1e300, 1e300},
		{"strings", []string{"x"}, []any{"x"}},
		{"nil slice", []any(nil), nil},
		{"nested int", map[string]any{"a": []any{1}}, map[string]any{"a": []any{int64(1)}}},
		{"invalid utf-8", "a\xffb", "a\ufffdb"},
		{"pointer", &match{"b", 1}, map[string]any{"path": "b", "line": int64(1)}},
	} {
		var r core.Result
		if err := r.SetOutput(carrier{c.v}); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.ForLLM != "as text" || !reflect.DeepEqual(r.Data, c.want) {
			t.Errorf("%s: got %q %#v, want %#v", c.name, r.ForLLM, r.Data, c.want)
		}
	}

	for name, v := range map[string]any{"nan": math.NaN(), "chan": make(chan int), "nested inf": map[string]any{"x": []any{math.Inf(1)}}} {
		var r core.Result
		err := r.SetOutput(core.DataOutput{Text: "t", Data: v})
		if err == nil || !strings.Contains(err.Error(), "cannot encode tool data") || r.Data != nil {
			t.Errorf("%s: err %v, data %#v; want an encoding error and no data", name, err, r.Data)
		}
	}

	// A nil *DataOutput is no output, not a crash.
	var nilOut *core.DataOutput
	r = core.Result{}
	if err := r.SetOutput(nilOut); err != nil || r.ForLLM != "" || r.Data != nil {
		t.Errorf("nil *DataOutput: %v %q %#v", err, r.ForLLM, r.Data)
	}
	r = core.Result{}
	if err := r.SetOutput(&core.DataOutput{Text: "p", Data: []any{}}); err != nil || r.ForLLM != "p" || !reflect.DeepEqual(r.Data, []any{}) {
		t.Errorf("*DataOutput: %v %q %#v", err, r.ForLLM, r.Data)
	}
}
