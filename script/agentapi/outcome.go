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
type outcomes struct {
	mu   sync.Mutex
	list []Outcome
}

func (o *outcomes) add(reply *agent.Reply, err error, schema bool) {
	if reply == nil {
		reply = &agent.Reply{}
	}
	o.mu.Lock()
	o.list = append(o.list, Outcome{Reply: reply, Err: err, Schema: schema})
	o.mu.Unlock()
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
