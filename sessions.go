package agentsh

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/agent/session"
)

// SessionInfo describes a saved session: its id, turns, last prompt,
// model and workdir.
type SessionInfo = session.Info

// ErrSessionNotFound is the error of going on with a session that is not
// saved.
var ErrSessionNotFound = session.ErrNotFound

// CheckSessionID reports whether id can name a saved session.
func CheckSessionID(id string) error { return session.CheckID(id) }

// ListSessions returns the saved sessions of workdir ("" is the current
// directory), the latest first, and the workdir made absolute.
func ListSessions(workdir string) ([]SessionInfo, string, error) {
	st := &session.Store{Workdir: workdir}
	abs := st.AbsWorkdir()
	list, err := st.List(abs)
	return list, abs, err
}

// ResumeLatest goes on with the latest saved session: of the shell's
// workdir when here is true, else of any. Without one it returns
// ErrSessionNotFound; without WithSessions, an error. A session that
// loads with an error (a session_end hook of the conversation it
// replaces failed) is returned with it.
func (s *Shell) ResumeLatest(ctx context.Context, here bool) (*session.Loaded, error) {
	st := s.agent.Sessions()
	if st == nil {
		return nil, fmt.Errorf("conversations are not saved: compose the shell WithSessions")
	}
	workdir := ""
	if here {
		workdir = st.AbsWorkdir()
	}
	info, ok, err := st.Latest(workdir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrSessionNotFound
	}
	return s.agent.Resume(ctx, info.ID)
}

// SessionStart says which saved session a shell goes on with: Name (or
// a new session of that name), ResumeID, or the latest one (of the
// shell's workdir when LatestHere).
type SessionStart struct {
	Name       string
	ResumeID   string
	Latest     bool
	LatestHere bool
}

// StartSession goes on with the session st names and returns it loaded;
// nil for a new session (or when st names none). A session that is not
// saved is ErrSessionNotFound. A session that loads with an error (a
// session_end hook of the conversation it replaces failed) is returned
// with it.
func (s *Shell) StartSession(ctx context.Context, st SessionStart) (*session.Loaded, error) {
	switch {
	case st.Name != "":
		l, _, err := s.agent.UseSession(ctx, st.Name)
		return l, err
	case st.ResumeID != "":
		return s.agent.Resume(ctx, st.ResumeID)
	case st.Latest || st.LatestHere:
		return s.ResumeLatest(ctx, st.LatestHere)
	}
	return nil, nil
}
