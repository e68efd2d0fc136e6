// Package starlark binds the agentsh script API (package script) to
// Starlark (go.starlark.net).
//
// An Interp runs .star files, snippets and REPL chunks against a
// script.Host; it is a script.Interp, and the package registers the
// language "starlark" (alias "star", files .star) with package script
// when it is imported. At the REPL and in snippets, the names load()
// binds stay bound for the next input. A script error is a
// *script.Error, whose Detail prints the backtrace before the message. Scripts define tools, hooks and middleware with tool,
// before, after and middleware; call tools with invoke_tool and
// invoke_all; and use the modules json, re, time, math, state and the
// struct builtin.
//
// # Dialect
//
// agentsh is a shell, so the dialect is permissive: top-level for/if/while,
// while loops, set, recursion and reassignment of globals are allowed.
// Every top-level run and every call into a script function has a step
// budget (Options.MaxSteps), and Starlark caps the call stack, so a runaway
// script stops with an error instead of hanging.
//
// # Values
//
// Values cross into Go as JSON shapes (see package script), converted
// strictly: an error names the path of the part that has no JSON form,
// such as args["items"][2]. A list or dict that contains itself, or
// values nested deeper than script.MaxDepth, are such errors too. A
// tool's arguments, and a hook's call.args, are decoded from the call's
// JSON text straight into Starlark values; a script.Shared or
// script.SharedList (the messages a model function gets) is converted
// once and frozen, so changing it in place is an error.
//
// # Tests
//
// With Options.Testing, scripts also have the assert module (eq, ne, true,
// is_true, contains, fails), mock_tool(name, fn_or_value) and
// skip(reason), the names of *_test.star files run by agentsh test
// (package script/testrunner). Functions lists a file's functions and
// CallGlobal runs one; a failed assertion is a *script.Error at the
// assert call, and skip raises a *script.Skipped that errors.As finds.
//
// # Concurrency
//
// Each call into a script function gets a fresh starlark.Thread whose
// cancellation follows the call's context. A function is frozen when it is
// registered (tool, before, after, middleware), together with the values of
// its module's globals at that moment, so it can run on any goroutine, also
// concurrently; state that must change across calls belongs in the state
// module, which is safe for concurrent use.
//
// An Interp's top-level evaluation (ExecFile, Exec, EvalChunk, and the
// script.Interp methods LoadFile, Run, Eval, CallGlobal) must not run
// concurrently with itself. A registered function may run while top-level
// code is blocked in invoke_tool or invoke_all, as agentsh always arranges;
// a Go program that calls a script's tools from its own goroutines must
// wait until the script's top level has returned, because Starlark cannot
// freeze a module's global names, only their values.
package starlark
