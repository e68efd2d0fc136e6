// Package agentsh is an embedded scripting agent shell. Tools, hooks and
// middleware written in Starlark, Lua or Go register into one registry,
// and every tool call (from a script, from Go, from a model in the agent
// loop, from an MCP client, from another agent's hook) runs through one
// executor pipeline:
//
//	tool before hooks → global before hooks → sandbox → middleware → tool
//	  → global after hooks → tool after hooks
//
// New composes a shell, the way the agentsh command does:
//
//	import (
//		"github.com/agentsh/agentsh"
//		_ "github.com/agentsh/agentsh/all" // Starlark, Lua, the model adapters, the browser
//	)
//
//	func main() {
//		agentsh.Init() // first: run_code's children and the sandbox's bridge run here
//		sh, err := agentsh.New(agentsh.WithWorkDir("."), agentsh.WithModel("anthropic:claude-sonnet-4-5"),
//			agentsh.WithScripts("policy.star"))
//		...
//		defer sh.Close()
//		res, err := sh.InvokeTool(ctx, "read_file", json.RawMessage(`{"path":"README.md"}`))
//		reply, err := sh.Ask(ctx, "fix the failing test")
//	}
//
// A Shell holds the built-in tools (files, bash, grep and glob, fetch,
// browser, run_code, task) on its workdir, the script host its
// interpreters share, the executor, the agent with its model, budget and
// sessions, the upstream MCP servers and the sandbox of bash and
// run_code. Options set the fields of a Config; a program that reads its
// settings elsewhere fills a Config and passes WithConfig. A value New
// cannot use is an *OptionError naming the option.
//
// This package names no language binding and no model adapter: they
// register by name when imported (package script/starlark, script/lua,
// provider/openai, ...), and package all imports every one. The built-in
// tools are deterministic: the same output on every search backend and in
// every execution mode.
//
// The packages below compose into the shell, and a program may use them
// directly:
//
//	core              the vocabulary: Tool, Call, Result, errors, Registry, Extension
//	executor          the pipeline, execution modes, the middleware library
//	agent             the model loop, lifecycle hooks, budgets, prompt caching
//	agent/session     conversations saved as sessions
//	provider          the conversation vocabulary; adapters register by spec prefix
//	tools             the built-in tools; tools/search: backends registered by name
//	tools/process     the sandbox of bash and run_code (Bubblewrap, Landlock)
//	tools/mcp         upstream MCP servers, and (serve) the registry as one
//	script            the language-neutral script API, declared once as data
//	script/starlark   the Starlark binding; script/lua, the Lua binding
//	stdlib            modules for scripts (json, re, time, state, ...)
//	bashcmd           reads a Bash command line without running it
//	hookadapter       other agents' hook events (Claude Code, Gemini CLI, Codex)
//	cmd/agentsh       the command: flags → Config → New, and the terminal
//
// A Shell is safe for concurrent use; see its methods.
package agentsh
