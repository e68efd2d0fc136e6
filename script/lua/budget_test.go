package lua

import (
	"context"
	"errors"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestStepBudget: runaway code stops with the step budget's error, as in
// Starlark: an endless loop, endless recursion through tail calls (which
// the call stack limit does not see), a loop calling a builtin, a
// backtracking pattern (Go code working for the script), and a loop in a
// coroutine. None of them has a context that ends.
func TestStepBudget(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 100_000})
	for name, src := range map[string]string{
		"loop":      `while true do end`,
		"tail":      `local function f(n) return f(n + 1) end f(0)`,
		"builtin":   `while true do local s = string.rep("ab", 100) s = s:gsub("a", "b") end`,
		"pattern":   `local s = string.rep("a", 40) s:match("(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b")`,
		"coroutine": `local co = coroutine.create(function() while true do end end) coroutine.resume(co) error(select(2, coroutine.resume(co)))`,
	} {
		var err error
		bounded(t, name, func() { err = e.exec(src) })
		if err == nil {
			t.Fatalf("%s: finished without error", name)
		}
		wantContains(t, err.Error(), "step budget of 100000 exceeded")
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: a step-budget error must not look like a context error: %v", name, err)
		}
	}
	// The budget is per run: the next run starts afresh.
	e.run(`local n = 0 for i = 1, 1000 do n = n + i end print(n)`)
	wantLines(t, e.lines(), "500500")
}

// TestStepBudgetInTool: a runaway tool fails its own call; the script that
// called it has a budget of its own and carries on.
func TestStepBudgetInTool(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 100_000})
	e.run(`tool{name = "spin", fn = function() while true do end end}`)
	var res *core.Result
	bounded(t, "tool loop", func() { res = e.invoke("spin", `{}`) })
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "step budget of 100000 exceeded")
	e.runBounded("caller", `
local kinds = {}
for i = 1, 3 do kinds[i] = invoke_tool("spin").error_kind end
print(table.concat(kinds, " "))`)
	wantLines(t, e.lines(), "failed failed failed")
}

// TestDefaultStepBudget: without Options.MaxSteps the budget is the
// default, large enough for real work.
func TestDefaultStepBudget(t *testing.T) {
	e := newEnv(t, Options{})
	if got := e.in.maxSteps(); got != DefaultMaxSteps {
		t.Errorf("maxSteps() = %d, want %d", got, DefaultMaxSteps)
	}
	e.run(`local n = 0 for i = 1, 100000 do n = n + 1 end print(n)`)
	wantLines(t, e.lines(), "100000")
}
