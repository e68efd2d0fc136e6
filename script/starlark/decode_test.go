package starlark

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
)

// TestBuilderMatchesShapes: JSON text decoded straight into Starlark
// values is what converting DecodeJSON's shapes makes: the same types
// (int and float told apart), the same dict order, the same text.
func TestBuilderMatchesShapes(t *testing.T) {
	for _, raw := range []string{
		`{"path":"src/main.go","limit":10}`, `{"z":1,"a":[1,2.5,-0.0,-0,1e300,"x",null,true,false],"m":{"b":{},"a":[]}}`,
		`{"k":1,"k":[2]}`, `"\ud83d\ude00\ud83d"`, "\"a\xffb\"", `123456789012345678901`, `[]`, `{}`, `null`,
	} {
		shapes, err := script.DecodeJSON([]byte(raw))
		if err != nil {
			t.Fatalf("DecodeJSON(%q): %v", raw, err)
		}
		want, err := fromGo(shapes)
		if err != nil {
			t.Fatal(err)
		}
		got, err := script.DecodeAs([]byte(raw), "args", builder{})
		if err != nil {
			t.Fatalf("DecodeAs(%q): %v", raw, err)
		}
		if got.String() != want.String() || got.Type() != want.Type() || typesOf(got) != typesOf(want) {
			t.Errorf("DecodeAs(%q) = %s (%s), want %s (%s)", raw, got, typesOf(got), want, typesOf(want))
		}
	}
}

// typesOf lists the types of v and its elements, in order.
func typesOf(v star.Value) string {
	var b strings.Builder
	var walk func(v star.Value)
	walk = func(v star.Value) {
		b.WriteString(v.Type() + " ")
		switch x := v.(type) {
		case *star.List:
			for i := 0; i < x.Len(); i++ {
				walk(x.Index(i))
			}
		case *star.Dict:
			for _, item := range x.Items() {
				walk(item[0])
				walk(item[1])
			}
		}
	}
	walk(v)
	return b.String()
}

// TestToolArgumentsDecodeStraight: a Starlark tool gets its arguments as
// a dict of its own to change; arguments with no Starlark form fail the
// call with the decoder's error as it was, before the function runs.
func TestToolArgumentsDecodeStraight(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def t(args):
    args["seen"] = True
    return json.encode(args)
tool(name = "t", fn = t)
`)
	if r := e.invoke("t", `{"b":[1,2.5,{"c":null}],"a":"\u00e9"}`); r.Err != nil || r.ForLLM != `{"a":"é","b":[1,2.5,{"c":null}],"seen":true}` {
		t.Errorf("t: %q, %v", r.ForLLM, r.Err)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"pad": 1e400}`, `args["pad"]: number 1e400 is out of range`},
		{`{"deep": ` + strings.Repeat("[", script.MaxDepth) + strings.Repeat("]", script.MaxDepth) + `}`, `value at args["deep"][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels`},
	} {
		r := e.invoke("t", tc.args)
		if r.Kind() != core.KindFailed || !strings.Contains(r.Err.Error(), tc.want) || strings.Contains(r.Err.Error(), "argument") {
			t.Errorf("t(%.30s…): %v, want a failure saying %s", tc.args, r.Err, tc.want)
		}
	}
}

// TestSharedValue: a script.Shared converts once into a frozen value that
// every call sees, from any goroutine; a script that changes it gets
// Starlark's error.
func TestSharedValue(t *testing.T) {
	s := script.NewShared(map[string]any{"role": "user", "tool_calls": []any{map[string]any{"id": "c1"}}})
	var wg sync.WaitGroup
	got := make([]star.Value, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := fromGo([]any{s})
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = v.(*star.List).Index(0)
		}()
	}
	wg.Wait()
	for i, v := range got {
		if v == nil || v.String() != `{"role": "user", "tool_calls": [{"id": "c1"}]}` {
			t.Fatalf("conversion %d = %v", i, v)
		}
	}
	// Concurrent first uses may each convert; later uses share one value.
	v1, _ := fromGo(s)
	v2, _ := fromGo([]any{s})
	if v1 != v2.(*star.List).Index(0) {
		t.Errorf("a Shared converted again after its first use")
	}
	e := newEnv(t, Options{})
	fn, err := e.in.ExecSource(t.Context(), "m.star", []byte(`
def change(m):
    m["role"] = "assistant"
def change_nested(m):
    m["tool_calls"].append(1)
def read(m):
    return m["role"] + str(len(m["tool_calls"]))
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"change", "change_nested"} {
		_, err := e.in.register(fn[name].(star.Callable)).Call(t.Context(), s)
		if err == nil || !strings.Contains(err.Error(), "frozen") {
			t.Errorf("%s(shared): %v, want an error about a frozen value", name, err)
		}
	}
	if out, err := e.in.register(fn["read"].(star.Callable)).Call(t.Context(), s); err != nil || out != "user1" {
		t.Errorf("read(shared) = %v, %v", out, err)
	}
}

// TestSharedList: a list of the same Grows converts only its new items,
// shares the values of the ones before, and leaves the lists made before
// as they were; a list that is not the last one extended is made anew
// all the same; every list is frozen.
func TestSharedList(t *testing.T) {
	a := script.NewShared(map[string]any{"n": int64(1)})
	b := script.NewShared(map[string]any{"n": int64(2)})
	c := script.NewShared(map[string]any{"n": int64(3)})
	grows := script.NewShared(nil)
	conv := func(items ...*script.Shared) *star.List {
		t.Helper()
		v, err := fromGo(script.SharedList{Items: items, Grows: grows})
		if err != nil {
			t.Fatal(err)
		}
		l := v.(*star.List)
		if err := l.Append(star.None); err == nil {
			t.Errorf("a shared list is not frozen")
		}
		return l
	}
	l1 := conv(a)
	l2 := conv(a, b)
	if l2.Index(0) != l1.Index(0) || l1.Len() != 1 || l2.String() != `[{"n": 1}, {"n": 2}]` {
		t.Errorf("grown list %s (first list %s): want the first value shared and the first list unchanged", l2, l1)
	}
	l3 := conv(a, c) // not l2 extended, though its maker kept Grows
	if l3.String() != `[{"n": 1}, {"n": 3}]` || l2.String() != `[{"n": 1}, {"n": 2}]` {
		t.Errorf("a list that is no extension: %s (and the one before %s)", l3, l2)
	}
	if l4 := conv(a); l4.String() != `[{"n": 1}]` || l3.Len() != 2 {
		t.Errorf("a shorter list: %s (and the one before %s)", l4, l3)
	}
}
