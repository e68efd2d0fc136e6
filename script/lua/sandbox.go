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
	return nil
}

// RunSandboxed runs code in a fresh Lua state with only the sandbox's
// libraries (no agentsh API, no os, no require) and print captured. It
// stops when ctx ends, bounds the call stack and the registry, and returns
// what the code printed (at most 1 MiB) with any error. It is safe for
// concurrent use: every call has its own state. It is the lua runner of
// the run_code tool.
func RunSandboxed(ctx context.Context, code string) (string, error) {
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
	L.SetContext(ctx)
	if err := L.DoString(code); err != nil {
		if ctx.Err() != nil {
			return out.String(), fmt.Errorf("lua code stopped: %w", ctx.Err())
		}
		return out.String(), err
	}
	return out.String(), nil
}
