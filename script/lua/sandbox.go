package lua

import (
	"context"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxOutput bounds what a sandboxed snippet may print.
const maxOutput = 1 << 20

// removedGlobals are base functions a sandbox must not offer: they load
// code from files or strings, reach the garbage collector, or change
// function environments.
var removedGlobals = []string{"dofile", "loadfile", "load", "loadstring", "collectgarbage", "require", "module", "newproxy", "getfenv", "setfenv", "_printregs"}

// openSandbox opens base (without removedGlobals), table, string, math and
// coroutine in L.
func openSandbox(L *lua.LState) error {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return fmt.Errorf("lua sandbox: open %s: %v", lib.name, err)
		}
	}
	for _, name := range removedGlobals {
		name := name
		L.SetGlobal(name, L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("%s is not available in the agentsh sandbox", name)
			return 0
		}))
	}
	L.SetGlobal("_GOPHER_LUA_VERSION", lua.LNil)
	installPatterns(L)
	guardCoroutines(L)
	return nil
}

// maxCoroutineNesting bounds coroutines resumed inside each other. Every
// level is a Lua thread and a Go stack frame that the call-stack limit
// does not see, so runaway recursion through coroutine.wrap would
// otherwise grow until memory is gone.
const maxCoroutineNesting = 500

// guardCoroutines wraps coroutine.resume and coroutine.wrap so that
// resumes nest at most maxCoroutineNesting deep.
func guardCoroutines(L *lua.LState) {
	co := L.GetGlobal(lua.CoroutineLibName).(*lua.LTable)
	depth := 0
	enter := func(L *lua.LState) {
		if depth >= maxCoroutineNesting {
			L.RaiseError("coroutines nested more than %d deep", maxCoroutineNesting)
		}
		depth++
	}
	leave := func() { depth-- }
	// call runs fn with the arguments on L's stack, returning all its
	// results; leave runs even when fn raises (an unwinding panic).
	call := func(L *lua.LState, fn lua.LValue) int {
		enter(L)
		defer leave()
		L.Insert(fn, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}
	resume, wrap := co.RawGetString("resume"), co.RawGetString("wrap")
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int { return call(L, resume) }))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		L.Insert(wrap, 1)
		L.Call(L.GetTop()-1, 1)
		wrapped := L.Get(-1)
		L.Push(L.NewFunction(func(L *lua.LState) int { return call(L, wrapped) }))
		return 1
	}))
}

// RunSandboxed runs code in a fresh Lua state with only the sandbox's
// libraries (no agentsh API, no os, no require) and print captured. It
// stops at maxSteps (0 means DefaultMaxSteps) or when ctx ends, bounds the
// call stack and the registry, and returns
// what the code printed (at most 1 MiB) with any error. It is safe for
// concurrent use: every call has its own state. It is the lua runner of
// the run_code tool.
func RunSandboxed(ctx context.Context, code string, maxSteps uint64) (string, error) {
	if maxSteps == 0 {
		maxSteps = DefaultMaxSteps
	}
	L := lua.NewState(stateOptions)
	defer L.Close()
	if err := openSandbox(L); err != nil {
		return "", err
	}
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		if out.Len() < maxOutput {
			out.WriteString(strings.Join(parts, "\t"))
			out.WriteByte('\n')
		}
		return 0
	}))
	L.SetContext(withBudget(ctx, maxSteps))
	fn, err := L.LoadString(code)
	if err != nil {
		return "", err
	}
	L.Push(fn)
	if err := pcallNoTrace(L); err != nil {
		if ctx.Err() != nil {
			return out.String(), fmt.Errorf("lua code stopped: %w", ctx.Err())
		}
		return out.String(), err
	}
	return out.String(), nil
}

// pcallNoTrace runs the function on top of L's stack, protected. A
// handler, even one that only passes the error on, keeps PCall from
// building a traceback, which after a long tail-call loop costs seconds;
// with the value stack full PCall panics instead, and that is an error too.
func pcallNoTrace(L *lua.LState) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = overflowError(r)
		}
	}()
	return L.PCall(0, 0, L.NewFunction(func(L *lua.LState) int { return 1 }))
}
