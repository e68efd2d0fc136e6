// Package script is the language-neutral script API of agentsh. Every
// name scripts use — tool, before, after, middleware, deny, rewrite,
// invoke_tool, invoke_all, tool_names, get_tool, unregister_tool, config,
// dual, silent, timeout, retry (api.go), the modules json, re, time, state
// and assert (modules.go, over package stdlib), and what a Go program adds
// with AddBuiltin (the agent's model, ask, on, provider, mcp_server) — is
// declared here once, as a Builtin: parameters with kinds, defaults and a
// doc line. Builtin.Call checks and converts the arguments, so every
// language takes the same parameters and gives the same errors.
//
// A binding (Starlark in script/starlark, Lua in script/lua) contributes
// only value conversion and its calling convention: it shows every
// Builtin, Module and Object generically, and wraps its functions as Func.
// It implements Interp and registers itself with RegisterLanguage; the
// CLI, the test runner, run_code and the conformance suite
// (script/scripttest) reach a language only through LookupLanguage or
// LanguageOf, and see its errors as *Error.
//
// # Concurrency
//
// A Host is safe for concurrent use. A Func may be called from any
// goroutine, concurrently; each binding makes that safe for its language
// (Starlark freezes functions when they are registered; Lua serializes
// calls into one state). Interp documents which of its methods may overlap.
package script
