package session

import (
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/provider"
)

// LineCalls reads one line of a session file for a program that reviews
// the model's calls (agentsh policy diff): the header's workdir, for the
// header, and the tool calls of an assistant message, with their
// arguments verbatim, for a msg record. Other records give neither; a
// replace record's messages were each saved before as a msg record, so
// they give nothing either. A line that is not a session record is an
// error.
func LineCalls(line []byte) (workdir string, calls []provider.ToolCall, err error) {
	var rec loadRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", nil, err
	}
	switch rec.T {
	case recSession:
		return rec.Workdir, nil, nil
	case recMsg:
		w, err := rec.wire()
		if err != nil {
			return "", nil, err
		}
		m, err := w.message()
		if err != nil {
			return "", nil, err
		}
		if m.Role != provider.RoleAssistant {
			return "", nil, nil
		}
		return "", m.ToolCalls, nil
	case recReplace, recTurn, recRun, recResume:
		return "", nil, nil
	}
	return "", nil, fmt.Errorf("a record of type %q, want session, msg, replace, turn, run or resume", rec.T)
}
