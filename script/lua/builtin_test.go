package lua

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/internal/scripttest"
)

// apply is a host builtin that calls a script function: apply(fn, value,
// times?) returns a record {result, calls}.
var apply = script.Builtin{Name: "apply", Params: []script.Param{{Name: "fn"}, {Name: "value"}, {Name: "times", Optional: true}},
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
	}}

// TestHostBuiltins: a builtin added to the host is a Lua global; Lua
// functions pass as script.Funcs (called without deadlock, since the
// builtin runs unlocked), optional parameters come as a trailing table,
// and a Record comes back as a table.
func TestHostBuiltins(t *testing.T) {
	ex := executor.New(nil)
	out := &scripttest.Buffer{}
	h := script.NewHost(ex, out)
	h.AddBuiltin(apply)
	in := New(h, Options{})
	defer in.Close()
	_, err := in.ExecSource(context.Background(), "b.lua", []byte(`
local r = apply(function(x) return x * 2 end, 3, {times = 4})
print(r.result, r.calls)
print(apply(function(x) return x .. "!" end, "hi").result)
print(pcall(apply, 1, 2))
print(pcall(apply, function(x) return x end, 1, {tims = 2}))
print(pcall(apply, function(x) error("inner") end, 1))
`))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out.Lines(),
		"48\t4",
		"hi!",
		"false\tb.lua:5: apply: fn must be a function, got an int",
		"false\tb.lua:6: apply: times must be an integer, got {\"tims\":2}",
		"false\tb.lua:7: b.lua:7: inner")
}
