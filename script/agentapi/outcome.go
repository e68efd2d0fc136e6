package agentapi

import (
	"context"
	"sync"

	"github.com/agentsh/agentsh/agent"
)

// Outcome is how one top-level Run ended: an ask() of the script (at any
// depth of its code, but not a subagent's run) or Session.RunTop (agentsh
// ask). A command line reads the outcomes to choose its exit code and to
// write its result event.
type Outcome struct {
	// Reply is the run's reply; never nil.
	Reply *agent.Reply
	// Err is the run's error, nil when it ended with a Stop reason alone.
	Err error
	// Schema says the run asked for a structured answer (Reply.Data).
	Schema bool
}

// outcomes records the top-level runs of a session, in the order they
// ended. It is safe for concurrent use.
//
// Of an earlier run, what a command line reads is its counts, usage,
// stop, denials and error: its text (only the last run's is shown), and
// its data once a later run asked for a schema too (only the last such
// run's is shown), are let go, so a script that asks without end keeps a
// small record per ask rather than every answer.
type outcomes struct {
	mu         sync.Mutex
	list       []Outcome
	lastSchema int // the index+1 of the last run with a schema; 0: none
}

func (o *outcomes) add(reply *agent.Reply, err error, schema bool) {
	if reply == nil {
		reply = &agent.Reply{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.list); n > 0 {
		o.list[n-1].Reply = o.trimmed(n-1, schema)
	}
	if schema && o.lastSchema > 0 && o.lastSchema < len(o.list) {
		o.list[o.lastSchema-1].Reply = o.trimmed(o.lastSchema-1, true)
	}
	o.list = append(o.list, Outcome{Reply: reply, Err: err, Schema: schema})
	if schema {
		o.lastSchema = len(o.list)
	}
}

// trimmed is a copy of the reply of run i without its text, and without
// its data when a later run's replaces it (the caller's reply is never
// changed: a script may hold it).
func (o *outcomes) trimmed(i int, newSchema bool) *agent.Reply {
	r := *o.list[i].Reply
	r.Text, r.Dropped = "", nil
	if newSchema && o.list[i].Schema {
		r.Data = nil
		if r.Stop != agent.StopSchema { // the exit code quotes a failed run's violations
			r.Violations = nil
		}
	}
	return &r
}

// Outcomes returns the outcomes of the session's top-level runs so far,
// in the order they ended. It is safe to call concurrently with runs.
func (s *Session) Outcomes() []Outcome {
	s.outcomes.mu.Lock()
	defer s.outcomes.mu.Unlock()
	return append([]Outcome(nil), s.outcomes.list...)
}

// RunTop runs prompt as a top-level run of the session (agentsh ask) and
// records its outcome. schema says whether opts ask for a structured
// answer.
func (s *Session) RunTop(ctx context.Context, prompt string, schema bool, opts ...agent.RunOption) (*agent.Reply, error) {
	reply, err := s.agent.Run(ctx, prompt, opts...)
	s.outcomes.add(reply, err, schema)
	return reply, err
}
