package starlark

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/internal/scripttest"
)

// TestHostBuiltins: a builtin added to the host is a Starlark global that
// takes positional and keyword arguments; functions pass as script.Funcs;
// a Record comes back as a struct.
func TestHostBuiltins(t *testing.T) {
	out := &scripttest.Buffer{}
	h := script.NewHost(executor.New(nil), out)
	h.AddBuiltin(script.Builtin{Name: "apply", Params: []script.Param{{Name: "fn"}, {Name: "value"}, {Name: "times", Optional: true}},
		Fn: func(ctx context.Context, args script.Args) (any, error) {
			fn, err := args.Func("apply", "fn")
			if err != nil {
				return nil, err
			}
			times, err := args.Int("apply", "times", 1)
			if err != nil {
				return nil, err
			}
			v := args["value"]
			for i := 0; i < times; i++ {
				if v, err = fn.Call(ctx, v); err != nil {
					return nil, err
				}
			}
			return script.Record{"result": v, "calls": int64(times)}, nil
		}})
	in := New(h, Options{})
	_, err := in.ExecSource(context.Background(), "b.star", []byte(`
r = apply(lambda x: x * 2, 3, times = 4)
print(r.result, r.calls)
print(apply(fn = lambda x: x + "!", value = "hi").result)
`))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out.Lines(), "48 4", "hi!")
	for _, tc := range []struct{ src, want string }{
		{`apply(1, 2)`, "apply: fn must be a function, got an int"},
		{`apply(lambda x: x, 1, tims = 2)`, `apply: unexpected argument "tims"`},
		{`apply(lambda x: x, 1, 2, 3)`, "apply: got 4 arguments, want at most 3"},
		{`apply(lambda x: fail("inner"), 1)`, "inner"},
	} {
		_, err := in.ExecSource(context.Background(), "bad.star", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestFrozenGlobalsExplained: registering a function freezes the file's
// globals; changing one afterwards fails with an error that says why and
// points to state.
func TestFrozenGlobalsExplained(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.exec(`
seen = []
def record(args):
    return "ok"
tool(name = "record", fn = record)
seen.append(1)
`)
	if err == nil {
		t.Fatal("appending to a frozen global succeeded")
	}
	wantContains(t, err.Error(), "cannot append to frozen list", "registering a function", "froze this file's globals", "state")
	// Before any registration a frozen value says nothing of it.
	e2 := newEnv(t, Options{})
	err = e2.exec("argv.append(1)")
	if err == nil || strings.Contains(err.Error(), "registering") {
		t.Errorf("frozen argv: %v", err)
	}
	// Inside a tool the same mistake reads the same.
	e.run(`
counts = {}
def count(args):
    counts["n"] = 1
    return "ok"
tool(name = "count", fn = count)
`)
	res := e.invoke("count", `{}`)
	if res.Err == nil {
		t.Fatal("a tool changing a frozen global succeeded")
	}
	wantContains(t, res.Err.Error(), "frozen hash table", "froze this file's globals", "state")
}
