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
// The packages it composes, each usable on its own:
//
//	core                   the vocabulary: Tool, Call, Result, errors, Registry, Extension
//	executor               the pipeline, execution modes, the middleware library
//	agent                  the model loop, lifecycle hooks, budgets, prompt caching
//	agent/rules            project rules (AGENTS.md, ...) as a prompt section
//	agent/skills           skills: SKILL.md files the model loads on demand
//	agent/session          conversations saved as sessions
//	provider               the conversation vocabulary; adapters register by spec prefix
//	provider/openai        OpenAI's API and ollama; provider/anthropic, Anthropic's
//	provider/replay        a recorded run replayed, offline
//	provider/pricing       the price table of the budgets
//	provider/all           registers every adapter
//	tools                  the built-in tools: files, bash, grep, glob, fetch, run_code, task
//	tools/builtins         the built-in tools declared as data (read-only or not, effects)
//	tools/search           grep and glob backends registered by name (native, ripgrep, fd)
//	tools/search/searchtest  the conformance suite every search backend passes
//	tools/process          the sandbox of bash and run_code (Bubblewrap, Landlock)
//	tools/process/policytest the commands the shell policies must refuse or allow
//	tools/web              fetch under a destination policy, HTML to Markdown
//	tools/browser          headless Chromium for the browser tool; registers itself
//	tools/mcp              upstream MCP servers' tools, pinned
//	tools/mcp/serve        the registry as an MCP server
//	script                 the language-neutral script API, declared once as data
//	script/starlark        the Starlark binding; script/lua, the Lua binding
//	script/lua/pattern     Lua 5.1 patterns
//	script/agentapi        model, provider, ask, on and mcp_server for scripts
//	script/sandbox         run_code's Starlark and Lua in a child process
//	script/testrunner      agentsh test: *_test.star and *_test.lua files
//	script/scripttest      the conformance suite of a script language
//	stdlib                 modules for scripts (json, re, time, state, ...)
//	bashcmd                reads a Bash command line without running it
//	bashcmd/bashcmdtest    the corpus of command lines the shell policies are tested on
//	hookadapter            other agents' hook events (Claude Code, Gemini CLI, Codex)
//	durable                durable runs: the journal, resume, approvals that wait, batches
//	telemetry              OpenTelemetry spans: invoke_agent, chat, execute_tool with the verdict
//	telemetry/otlpenv      the OTLP exporter the OTEL_* variables ask for (the SDK's only importer)
//	audit                  the tamper-evident audit log (--audit, WithAudit): records, Verify
//	policydiff             agentsh policy diff: recorded calls re-decided under two policy sets
//	workpath               the paths tools take and print
//	scripts/policies       the shipped policies' tests
//	all                    registers the languages, the adapters and the browser
//	cmd/agentsh            the command: flags → Config → New, and the terminal
//
// A Shell is safe for concurrent use; see its methods.
package agentsh
