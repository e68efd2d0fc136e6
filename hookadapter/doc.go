// Package hookadapter lets other agents' tool calls through agentsh's
// policies: it reads one hook event that Claude Code, Gemini CLI or Codex
// sends on stdin and answers in that agent's own hook protocol.
//
// A pre-tool event is decided by executor.Decide with the model's
// defaults, and never runs the tool: the agent runs its own tool on the
// answer. A post-tool event feeds the after hooks (executor.Observe), with
// the agent's tool response as the result, so that audit logs see every
// call the agent made. A prompt event runs the user_prompt lifecycle
// hooks.
//
// The agent's tool names and fields map onto agentsh's (see ToolMap), so
// that one policy guards both; a rewrite is mapped back to the agent's
// field names. A verdict no hook gave is no opinion, answered with no
// output, so that the agent's own permission system decides: the default
// of the model origin (ask for tools that are not read-only) is agentsh's
// own, not the agent's.
//
// Every failure is the agent's blocking outcome, never one it treats as
// "proceed": malformed input, a policy that fails to load, a panic and a
// timeout all exit 2 with the reason on stderr (see Run).
//
// State that hooks keep in the session (the state module) persists per
// agent session id in a directory (StateDir), under a file lock held for
// the whole event and written by atomic rename, so concurrent hook
// processes of one session neither lose nor tear updates.
package hookadapter
