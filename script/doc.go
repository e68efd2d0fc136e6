// Package script is the language-neutral host API behind agentsh's script
// bindings. It implements, once, the semantics of every name scripts use —
// tool, before, after, middleware, deny, rewrite, invoke_tool, invoke_all,
// tool_names, get_tool, unregister_tool, config, dual, silent, timeout,
// retry, and the state store — on top of an executor. A binding (Starlark
// in script/starlark, Lua in script/lua) only converts between its
// interpreter's values and the JSON shapes of this package, and wraps its
// functions as Func.
//
// # Concurrency
//
// A Host is safe for concurrent use. A Func may be called from any
// goroutine, concurrently; each binding makes that safe for its language
// (Starlark freezes functions when they are registered; Lua serializes
// calls into one state).
package script
