// Package script is the language-neutral script API of agentsh. Every
// name scripts use — tool, before, after, middleware, allow, ask, deny,
// rewrite, decide, on, invoke_tool, invoke_all, tool_names, get_tool,
// unregister_tool, config, dual, silent, timeout, retry (api.go), the
// modules json, re, time, shell, state and assert (modules.go, over
// package stdlib), and what a Go program adds with AddBuiltin (the agent's
// model, provider, mcp_server; it plugs into ask and on with SetAsk and
// AddEvent) — is
// declared here once, as a Builtin: parameters with kinds, defaults and a
// doc line. Builtin.Call checks and converts the arguments, so every
// language takes the same parameters and gives the same errors.
//
// Decisions (verdict.go, events.go, decisions.go): a before hook returns a
// Verdict, which becomes the core.Allow, Ask or Deny error of its
// BeforeFunc beside the rewritten arguments. ask is the verdict only in a
// before hook's own context (the host marks it when it calls the hook and
// clears the mark for the tools, middleware and after hooks that run
// beneath it); elsewhere it asks the model. on("approve", fn) makes fn the
// executor's Approver. decide(...) and assert.allowed/asks/denied run
// executor.Decide, and state follows executor.SessionFor, so what hooks
// store while deciding is forgotten.
//
// A binding (Starlark in script/starlark, Lua in script/lua) contributes
// only value conversion and its calling convention: it shows every
// Builtin, Module and Object generically, and wraps its functions as Func.
// Two kinds of value reach a binding's functions besides JSON shapes and
// host objects (decode.go): a script tool's arguments come as RawJSON,
// which the binding decodes straight into its own values with DecodeAs
// and its Builder, and the agent's messages come as a SharedList of
// *Shared values, which it converts once and reuses.
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
