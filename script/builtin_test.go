package script

import (
	"strings"
	"testing"
)

func TestBuiltinBind(t *testing.T) {
	b := Builtin{Name: "ask", Params: []Param{{Name: "prompt"}, {Name: "max_turns", Optional: true}}}
	args, err := b.Bind([]any{"hi"}, map[string]any{"max_turns": int64(3)})
	if err != nil || args["prompt"] != "hi" || args["max_turns"] != int64(3) {
		t.Fatalf("Bind: %v, %v", args, err)
	}
	if n, err := args.Int("ask", "max_turns", 10); n != 3 || err != nil {
		t.Errorf("Int: %d, %v", n, err)
	}
	if n, _ := (Args{}).Int("ask", "max_turns", 10); n != 10 {
		t.Errorf("Int default: %d", n)
	}
	for _, tc := range []struct {
		pos   []any
		named map[string]any
		want  string
	}{
		{nil, nil, `ask: missing argument "prompt"`},
		{[]any{"a", int64(1), "extra"}, nil, "ask: got 3 arguments, want at most 2"},
		{[]any{"a"}, map[string]any{"turns": int64(1)}, `ask: unexpected argument "turns"; the parameters are prompt, max_turns`},
		{[]any{"a"}, map[string]any{"prompt": "b"}, `ask: argument "prompt" given twice`},
	} {
		if _, err := b.Bind(tc.pos, tc.named); err == nil || err.Error() != tc.want {
			t.Errorf("Bind(%v, %v): %v, want %q", tc.pos, tc.named, err, tc.want)
		}
	}
	if _, err := (Args{"max_turns": "x"}).Int("ask", "max_turns", 1); err == nil || !strings.Contains(err.Error(), "max_turns must be an integer") {
		t.Errorf("Int of a string: %v", err)
	}
	if _, err := (Args{"fn": int64(1)}).Func("model", "fn"); err == nil || !strings.Contains(err.Error(), "fn must be a function, got an int") {
		t.Errorf("Func of an int: %v", err)
	}
	if s, err := (Args{"p": true}).String("ask", "p"); err == nil || s != "" {
		t.Errorf("String of a bool: %q, %v", s, err)
	}
}

func TestAddBuiltinSorted(t *testing.T) {
	h := NewHost(nil, nil)
	h.AddBuiltin(Builtin{Name: "zeta"})
	h.AddBuiltin(Builtin{Name: "alpha"})
	h.AddBuiltin(Builtin{Name: "zeta", Params: []Param{{Name: "x"}}})
	bs := h.Builtins()
	if len(bs) != 2 || bs[0].Name != "alpha" || bs[1].Name != "zeta" || len(bs[1].Params) != 1 {
		t.Errorf("Builtins() = %+v", bs)
	}
}
