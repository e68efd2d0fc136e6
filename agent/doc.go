// Package agent runs the model loop: an Agent is a registry, an executor,
// a provider and extensions. Run sends the conversation and the tool
// definitions to the provider, runs the tool calls it answers with through
// the executor (so every policy applies), returns the results to the
// model, and stops on a final answer, on an answer cut off by the model's
// token limit, after the maximum number of turns, or when its context
// ends — leaving the conversation usable. A tool call the model could not
// finish is dropped and reported; one whose arguments are not JSON gets an
// invalid_arguments result the model can correct.
//
// Lifecycle hooks see and may change each step: session_start,
// user_prompt (may rewrite or refuse the prompt), before_compact (may
// supply the summary or pin messages when the conversation is compacted),
// before_model (may edit the request), after_model (may refuse the
// response), turn_end and session_end. Hooks for the first four run in
// registration order, the others in reverse; an error from session_start,
// user_prompt, before_compact, before_model or after_model stops the run
// (they fail closed).
//
// Compaction keeps a long conversation within the model's context window:
// see Agent.Compact, KnownContextWindow and WithContextWindow.
//
// Extensions (core.Extension) contribute system-prompt sections, tools,
// hooks and middleware as they do to an executor, and lifecycle hooks
// through LifecycleProvider.
//
// An Agent is safe for concurrent use, but one conversation runs one
// prompt at a time: Run calls wait for each other (or for their context),
// and a Run started from inside another — by a tool, hook or model
// function — fails with ErrNestedRun.
package agent
