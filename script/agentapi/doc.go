// Package agentapi adds the agent to the script API of every language:
//
//	model(fn)                  the scripted model: fn(messages, tools) returns
//	                           {"content": ..., "tool_calls": [{"name", "args"}]}
//	provider("openai:MODEL")   a live or replayed provider (anthropic:, ollama:, replay:FILE)
//	reply = ask(prompt, max_turns = 10)   reply.text .turns .tool_calls .stop .dropped .denials
//	ask(prompt, stream = False)           the same, without showing the text as it streams
//	ask(prompt, schema = {...})           the answer must be a JSON object valid against the
//	                           schema (the model is told the violations and tries again);
//	                           reply.data is it decoded, reply.violations what was wrong
//	on(event, fn)              lifecycle hooks: session_start, user_prompt,
//	                           before_compact, before_model, after_model,
//	                           turn_end, session_end
//	pin(text)                  text kept word for word in every compaction
//	c = compact()              compacts now: c.summarised .pinned .summary
//	                           .messages_before/after .tokens_before/after
//	mcp_server(name, command = [...])     remote MCP tools as mcp__NAME__TOOL
//	mcp_server(name, url = "...", read_only = ["search"])   declares tools read-only
//	                           (the server's readOnlyHint declares nothing)
//	spawn(prompt, tools = [...], max_turns = N)   a subagent's reply (.agent is its id)
//
// Subagents: the task tool (registered unless Config.NoTask) lets the
// model run one, spawn() a script. A subagent has a conversation of its
// own and a subset of the agent's tools, on the same executor: every
// policy, approver and lifecycle hook applies to it, and its calls carry
// its id, call.agent ("main/1") and call.parent_agent ("main"), so a
// policy can tell them apart. Its denials are in its reply and in the
// reply of the run it was started from. config(subagents = {"depth": 3,
// "per_run": 8, "concurrent": 4}) sets how deep they nest, how many one
// run starts and how many of one agent's run at once (the defaults
// shown), also in the middle of a run.
//
// Messages are plain dicts (tables in Lua): {"role", "content",
// "tool_calls": [{"id", "name", "args"}], "tool_call_id", "name",
// "is_error"}. A model function is called every turn with the whole
// conversation, yet each message is converted into script values once
// and passed again as the same value, so a turn costs the same however
// long the conversation. In Starlark those values, and the list of
// them, are frozen: a model function that changes a message or the list
// in place gets an error; it changes a copy (dict(m), list(messages))
// instead. The model's tool calls run through the host's executor, so
// every tool, hook and middleware of every language applies to them. They
// are the model's calls (core.OriginModel): when no policy decides, a
// call of a tool that is not read_only asks the approver (on("approve",
// fn)), and without one it is refused. reply.denials lists the refused
// calls: [{"call_id", "tool", "hook", "reason"}].
//
// ask and on are declared by package script, and this package plugs into
// them (Host.SetAsk, Host.AddEvent): inside a before hook, ask(reason) is
// the hook's verdict and never reaches the model; everywhere else (top
// level, tools, middleware, after hooks, lifecycle hooks) ask(prompt) asks
// the model.
//
// A lifecycle hook fn(event) receives {"event", "turn", "agent",
// "parent_agent", and "prompt", "request", "response" or "messages" and
// "summary" where they apply}. It returns None for no change,
// deny(reason) (or raises) to refuse a gating step, a string to rewrite
// the prompt (user_prompt), {"system": ..., "messages": [...]} to edit the
// request (before_model), or {"summary": text, "pin": [...]} to give the
// summary of event.messages and keep some of them word for word
// (before_compact; a pin is one of event.messages, or its position
// counted from 0 in every language).
//
// The conversation is compacted automatically when the model's context
// window is known (agent.KnownContextWindow, Config.ContextWindow), and
// by compact() whenever asked. The default summary is the model's answer
// to a request whose system prompt is agent.SummaryInstruction, with one
// user message (the transcript) and no tools: a model(fn) that will be
// asked for summaries answers such a request with text.
package agentapi
