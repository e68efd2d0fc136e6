// Package agentsh is an embedded scripting agent shell. Tools, hooks and
// middleware written in Starlark, Lua or Go register into one registry,
// and every tool call (from a script, from agentsh call, from a model in
// the agent loop) runs through one executor pipeline:
//
//	tool before hooks → global before hooks → middleware → tool
//	  → global after hooks → tool after hooks
//
// The built-in tools (files, bash, grep and glob, fetch and browser,
// run_code) are deterministic: the same output on every search backend
// and in every execution mode.
//
// The packages:
//
//	core              the vocabulary: Tool, Call, Result, errors, Registry, Extension
//	executor          the pipeline, execution modes, middleware library
//	agent             the model loop, lifecycle hooks, prompt caching
//	provider          the conversation vocabulary; adapters register by spec prefix
//	provider/all      registers every adapter: openai, ollama, anthropic, replay
//	tools             the built-in tools; tools/search: backends registered by name;
//	                  tools/browser: headless Chromium, registered when imported
//	script            the language-neutral script API
//	script/starlark   the Starlark binding
//	script/lua        the Lua binding
//	stdlib            modules for scripts (json, re, ...)
//	cmd/agentsh       the CLI and REPL; it wires the languages, providers and tools
//
// This package holds no code; its tests check the dependency direction
// between the others (deps_test.go) and that no build output is tracked.
package agentsh
