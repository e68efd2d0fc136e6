package agentapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/script"
)

// sessionOptions saves the agent's conversations in cfg.Sessions.
func sessionOptions(cfg Config) []agent.Option {
	st := cfg.Sessions
	if st == nil {
		return nil
	}
	return []agent.Option{agent.WithJournal(func(providerName string) (agent.Journal, error) {
		s, err := st.New("", providerName)
		if err != nil {
			return nil, err
		}
		return s, nil
	})}
}

// installSessionAPI adds session() to the script API.
func (s *Session) installSessionAPI(h *script.Host) error {
	h.AddBuiltin(script.Builtin{Name: "session",
		Doc:    "Returns the current session {id, path, workdir, turns, messages}, or None when conversations are not saved; session(id) goes on with the saved session id (or starts one of that name) first.",
		Params: []script.Param{{Name: "id", Kind: script.String, Optional: true}}, Fn: s.builtinSession})
	return nil
}

func (s *Session) builtinSession(ctx context.Context, args script.Args) (any, error) {
	id, err := args.String("session", "id")
	if err != nil {
		return nil, err
	}
	if id != "" {
		if _, _, err := s.UseSession(ctx, id); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
	}
	info := s.SessionInfo()
	if info == nil {
		return nil, nil
	}
	return info, nil
}

// errNotSaved is the error of resuming where conversations are not saved.
var errNotSaved = errors.New("conversations are not saved here (agentsh test hosts do not save them)")

// SessionInfo describes the current session as scripts see it: id,
// path, workdir, turns (the complete turns saved) and messages (the
// conversation's length); nil when conversations are not saved.
func (s *Session) SessionInfo() script.Record {
	s.agent.SessionID() // opens the journal of a new session when they are saved
	j, _ := s.agent.Journal().(*session.Session)
	if j == nil {
		return nil
	}
	return script.Record{"id": j.ID(), "path": j.Path(), "workdir": j.Workdir(), "turns": int64(j.Turns()),
		"messages": int64(len(s.agent.Messages()))}
}

// Sessions is the store conversations are saved in, or nil.
func (s *Session) Sessions() *session.Store { return s.cfg.Sessions }

// Resume goes on with the saved session id: its conversation replaces
// the current one, which ends (session_end hooks); resuming the current
// session changes nothing. Loading warnings are
// in the returned Loaded; a session_end hook's error comes with it.
func (s *Session) Resume(ctx context.Context, id string) (*session.Loaded, error) {
	st := s.cfg.Sessions
	if st == nil {
		return nil, errNotSaved
	}
	if j, ok := s.agent.Journal().(*session.Session); ok && j != nil && j.ID() == id {
		// Already the one going on: nothing to load.
		return &session.Loaded{ID: id, Workdir: j.Workdir(), Messages: s.agent.Messages(), Turns: j.Turns()}, nil
	}
	j, l, err := st.Open(id)
	if err != nil {
		return nil, err
	}
	if err := s.agent.Resume(ctx, j, l.Messages); err != nil {
		if errors.Is(err, agent.ErrRunning) {
			j.Close()
			return nil, err
		}
		return l, err
	}
	return l, nil
}

// UseSession goes on with session name when it is saved (l is what was
// loaded), else starts a new session of that name (created).
func (s *Session) UseSession(ctx context.Context, name string) (l *session.Loaded, created bool, err error) {
	st := s.cfg.Sessions
	if st == nil {
		return nil, false, errNotSaved
	}
	if err := session.CheckID(name); err != nil {
		return nil, false, err
	}
	if st.Exists(name) {
		l, err := s.Resume(ctx, name)
		return l, false, err
	}
	j, err := st.Create(name, s.ProviderName())
	if err != nil {
		return nil, false, err
	}
	if err := s.agent.Resume(ctx, j, nil); err != nil {
		if errors.Is(err, agent.ErrRunning) {
			j.Close()
			return nil, false, err
		}
		return nil, true, err
	}
	return nil, true, nil
}
