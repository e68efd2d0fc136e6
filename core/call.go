package core

import (
	"encoding/json"
	"sort"
	"sync"
)

// Call is one tool invocation as it travels through the pipeline. Hooks and
// middleware receive a pointer to it and must treat it as read-only: before
// hooks rewrite arguments by returning new ones, middleware passes a changed
// copy to next.
type Call struct {
	// ID identifies the call; the executor assigns call_1, call_2, ... when
	// the caller leaves it empty.
	ID   string
	Name string
	// Args is the arguments object. After the first pipeline step it is
	// always a JSON object, and canonical: the arguments the tool
	// declares as paths (Tool.Effects) are relative to WorkDir and clean.
	Args json.RawMessage
	// RawArgs is what the caller sent, before the call was made
	// canonical and before any hook rewrote it; the executor sets it when
	// the call starts.
	RawArgs json.RawMessage
	// WorkDir is the working directory the call's paths are relative to:
	// absolute, set by the executor (its own, see WithWorkDir) unless the
	// caller gives one (a hook adapter gives the other agent's).
	WorkDir string
	// Effects is what the call will do, made from its canonical
	// arguments by the executor before any hook runs (see Tool.Effects).
	// Treat it as read-only.
	Effects *Effects
	// DedupKey, when set, lets the Retry middleware execute a tool that is
	// not Idempotent again, and makes a key that already succeeded return the
	// stored result instead of running again.
	DedupKey string
	// Tool is resolved once, when the call starts; nil for an unknown name.
	Tool *Tool
	// Session is the state shared by every call of one executor (a
	// throwaway copy of it while the executor only decides; see
	// executor.Decide).
	Session *Session
	// Origin is who made the call; the executor resolves OriginUnset
	// before any hook runs, so hooks always see person, model, mcp or
	// hook.
	Origin Origin
	// Sandbox is where a Tool.Sandboxed tool runs the call's commands:
	// the origin's default before hooks, then what they chose (see the
	// executor's package doc); unset for other tools.
	Sandbox Sandbox
	// Agent names the agent whose run made the call ("main" for a
	// top-level agent, "main/1" for its first subagent, ...), and
	// ParentAgent that agent's parent ("" for a top-level agent); both are
	// "" for a call no agent made (a script's top level, agentsh call).
	// The executor fills them from the context (see WithAgent) when the
	// caller leaves Agent empty, and the calls nested in a call carry its
	// agent, so a policy can tell a subagent's calls from its parent's.
	Agent, ParentAgent string

	trail *trail // the decision records; see Record
}

// Session is a key/value store shared by the calls of one executor, so
// hooks and tools can keep state (counters, quotas, audit trails) between
// calls. Values should be JSON shapes (nil, bool, int64, float64, string,
// []any, map[string]any) so scripts in any language can read them. It is
// safe for concurrent use.
type Session struct {
	ID string

	mu    sync.Mutex
	state map[string]any
}

// NewSession returns an empty session.
func NewSession(id string) *Session { return &Session{ID: id, state: map[string]any{}} }

// Get returns the value stored under key.
func (s *Session) Get(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.state[key]
	return v, ok
}

// Set stores v under key.
func (s *Session) Set(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[string]any{}
	}
	s.state[key] = v
}

// Delete removes key.
func (s *Session) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.state, key)
}

// Update replaces the value under key with fn(old, present) atomically and
// returns the new value. fn must not call back into the session.
func (s *Session) Update(key string, fn func(old any, present bool) any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[string]any{}
	}
	old, ok := s.state[key]
	v := fn(old, ok)
	s.state[key] = v
	return v
}

// Clone returns a session with the same ID and a deep copy of the state,
// so that changes to one do not reach the other. Values that are not JSON
// shapes are shared, not copied.
func (s *Session) Clone() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Session{ID: s.ID, state: make(map[string]any, len(s.state))}
	for k, v := range s.state {
		c.state[k] = cloneShape(v)
	}
	return c
}

func cloneShape(v any) any {
	switch v := v.(type) {
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cloneShape(e)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = cloneShape(e)
		}
		return c
	}
	return v
}

// Keys returns the stored keys, sorted.
func (s *Session) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.state))
	for k := range s.state {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
