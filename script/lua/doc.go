// Package lua binds the agentsh script API (package script) to Lua 5.1
// (github.com/yuin/gopher-lua), name for name with the Starlark binding.
//
// An Interp runs .lua files, snippets and REPL chunks against a
// script.Host; it is a script.Interp, and the package registers the
// language "lua" (files .lua) with package script when it is imported. A
// Lua and a Starlark interpreter may share one host: their tools, hooks
// and middleware then apply to each other's calls.
//
// A script's arguments (script.Options.Argv) are in arg, as the lua
// command has them: arg[0] is the script, arg[1] the first argument; argv
// holds the same from argv[1]. A first line starting with # (such as
// #!/usr/bin/env agentsh) is skipped, and line numbers still count it.
//
//	tool{name = "greet", description = "Greets someone.",
//	     parameters = {type = "object", properties = {name = {type = "string"}}},
//	     concurrency_safe = true,            -- omitted: undeclared
//	     fn = function(args) return "Hello, " .. args.name end}
//
//	before(function(call)                   -- call.id .name .args .raw
//	  if call.args.path == ".env" then return deny("no secrets") end
//	  -- return nil: no opinion; return rewrite{...}: new arguments
//	end, {tools = {"read_file"}})            -- or a string, or omitted: global
//	after(function(call, result) print(call.name, result.ok) end)
//	middleware(function(call, next) return next(call) end)
//	middleware(timeout("2s")); middleware(retry{attempts = 3, backoff = "50ms"})
//
//	local r = invoke_tool("greet", {name = "Ada"}) -- args: table, JSON string or nil
//	-- r.ok r.output r.for_user r.silent r.error r.error_kind r.blocks
//	-- r.artifact r.call_id r.tool; tostring(r) is Starlark's str(r)
//	local rs = invoke_all({{"greet", {name = "A"}}, {name = "greet", args = {name = "B"}}},
//	                      {mode = "mixed", concurrency = 4})
//	tool_names(); get_tool("greet"); unregister_tool("greet")
//	config{mode = "serial", validate_arguments = true} -- returns every setting
//	dual("for the model", "for the person"); silent("model only")
//
// The names and their parameters are declared once, in package script
// (Host.API); this package only converts values and follows Lua's calling
// convention: arguments by position, and after the required ones a last
// table of named options, as in before(fn, {tools = "x", name = "p"}) or
// invoke_tool("x", args, {dedup_key = "k"}); tool and config take one
// table of named fields. A bad argument fails with the same message as in
// Starlark.
//
// Every top-level run and every call into a Lua function has a step
// budget (Options.MaxSteps, counted in VM instructions and in the steps of
// the pattern matcher), so a runaway loop stops with "step budget of N
// exceeded", as in Starlark.
//
// # Values
//
// Values cross into Go as JSON shapes (see package script). nil is None.
// Inside tables JSON null is agentsh.null (also json.null), because a nil
// cannot be stored in a table. A table whose keys are exactly 1..n is an
// array; a table with string keys is an object; any other key set (mixed
// keys, gaps, non-integer numbers) is an error naming the path, such as
// args["items"][2]. The empty table is the empty object {}; agentsh.array(t)
// marks t as an array, so agentsh.array{} is []. Arrays that come from Go
// (decoded JSON, call.args) carry that mark, so they round-trip. Integral
// numbers with magnitude up to 2^53 become integers; other numbers are
// floats; a Go integer beyond 2^53, which a Lua number cannot hold exactly,
// is an error rather than a silent change. A table that contains itself,
// or tables nested deeper than script.MaxDepth, are errors too.
//
// # Sandbox
//
// Scripts get base (without dofile, loadfile, load, loadstring, collectgarbage
// and the other functions that load code or reach the collector), table,
// string, math, coroutine, and os with only time, clock and date. print
// writes to the host. require("json") and the other agentsh modules (json,
// re, time, state) return them; require("name") also runs name.lua from the
// requiring file's directory, once, and returns what it returned (or, if it
// returned nothing, its globals). Every file runs in its own global
// environment whose missing names fall back to the predeclared ones, so two
// policies cannot clobber each other's globals. Calling a removed function
// raises "NAME is not available in the agentsh sandbox".
//
// # Concurrency
//
// A Lua state belongs to one goroutine at a time. An Interp has a main
// state, where top-level code, the REPL and require run, and up to
// GOMAXPROCS replicas: states of their own with the same sandbox and API,
// where registered functions (tools, hooks, middleware) run in parallel.
//
// On the main state, Lua execution takes turns under a lock that is held
// while Lua code runs and released while the script is in the host (every
// name of the script API, and next; module members such as state.get are
// quick and keep it); every call runs on its own Lua thread sharing the
// state's globals.
//
// A replica runs a function on copies of what it reaches: its upvalues,
// the globals its code names, and the tables, functions and host values
// reachable from them. The copies are made under the lock and brought up
// to date before a call, and when a call comes back from the host,
// whenever Lua code that may have changed them ran on the main state
// since; so a parallel function reads what the script holds, as if it
// had run alone. What is shared between states:
//
//   - the state module, the host and its tools, which are Go: share
//     counters and data between calls there (state.incr("hits"));
//   - upvalues and globals: a function that assigns one it shares with
//     the script (count = count + 1 on a local of the file, or on a global)
//     runs on the main state, so counting there keeps working; a function
//     that only reads them runs in parallel;
//   - tables a function reaches: its first call runs on the main state and
//     compares them before and after; a function that changed one stays on
//     the main state. If a later call on a replica changes one, the change
//     is made to that replica's copy and lost: the call fails with an
//     error that says to use the state module, and the function runs on the
//     main state from then on;
//   - functions that reach what must stay on the main state (tool,
//     before, after, middleware, on and require, coroutines, Go functions
//     made while the script ran, more than 4096 values) run there.
//
// A call finding no replica free runs on the main state, and a call
// waiting in the host keeps its replica, so nothing ever waits for a
// replica: a Lua tool that invokes another Lua tool, a Lua hook that runs
// during the script's own invoke_tool, and Lua and Starlark calling each
// other never deadlock, in any execution mode.
//
// A value the host passes as a script.Shared (the agent's messages) is
// converted once per state and the same table is passed again later: a
// function must not change it in place (Starlark freezes it).
//
// # Limits
//
// Every call runs under its context (LState.SetContext): a deadline or
// Ctrl-C stops an infinite loop in a tool, a hook or top-level code, and
// a pattern that backtracks for hours in string.find, match, gmatch or
// gsub (these are agentsh's, over package script/lua/pattern, and follow
// Lua 5.1 where gopher-lua's differ, as in %f frontiers). The
// call stack and the value stack (registry) of each thread are bounded,
// coroutines nest at most 500 deep, and calls through invoke_tool at most
// script.MaxNesting deep. There is no memory limit.
//
// # Errors
//
// A script error is a *script.Error: file:line (Lua keeps no columns),
// the message, and a traceback of at most 20 frames, taken before the
// stack unwinds, which Detail prints after the message.
//
// # Modules
//
// json, re, time and state behave as in Starlark. re reports positions as
// byte offsets from 0; since end is a Lua keyword, a match has m:span(n)
// (start and end) besides m:start(n), m:group(n), m:groups() and
// m:groupdict(). time values have Starlark's fields, format and tostring.
package lua
