package hookadapter

// Record is what one hook process did, for an audit trail (agentsh hook
// --events FILE, --audit FILE): Run gives it to Config.Audit once, as it
// returns.
type Record struct {
	// Agent is the protocol's name: claude-code, gemini or codex.
	Agent string
	// Event is the event read; nil when the input was not the protocol's.
	Event *Event
	// Answer is what agentsh decided, before the protocol spells it for
	// the agent, with its Ruling (pre-tool events) or Result (post-tool).
	Answer Answer
	// Code is the exit code, and Stderr what Run wrote on stderr: the
	// reason of a block that is no policy's verdict (malformed input,
	// policies that fail to load, no decision in time).
	Code   int
	Stderr string
}
