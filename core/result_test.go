package core_test

import (
	"encoding/json"
	"errors"
	"math"
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
