package hookadapter

import (
	"os"
)

// Record is what one hook process did, for an audit trail (agentsh hook
// --events FILE): Run gives it to Config.Audit once, as it returns.
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

// AppendLocked appends b to f, which is open with O_APPEND, in one write
// while it holds an exclusive lock on f: the records of hook processes
// that run at the same time (one per event, and agents run hooks
// concurrently) never interleave or tear.
func AppendLocked(f *os.File, b []byte) error {
	if err := lockFile(f); err != nil {
		return err
	}
	defer unlockFile(f)
	_, err := f.Write(b)
	return err
}
