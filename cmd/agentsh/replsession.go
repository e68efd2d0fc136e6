package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/agent/session"
)

// cmdSessions is :sessions: the saved sessions of this workdir, the
// latest first, the current one marked with *.
func (s *replSession) cmdSessions(arg string) {
	sess := s.a.sh.Agent()
	st := sess.Sessions()
	if st == nil {
		fmt.Fprintln(s.a.io.err, "conversations are not saved here")
		return
	}
	list, err := st.List(st.AbsWorkdir())
	if err != nil {
		fmt.Fprintln(s.a.io.err, detail(err))
		return
	}
	if len(list) == 0 {
		fmt.Fprintf(s.a.io.err, "no saved sessions for %s yet: each :ask is saved\n", st.AbsWorkdir())
		return
	}
	writeSessions(s.a.io.out, list, sess.Agent().SessionID())
}

// cmdResume is :resume ID: the conversation goes on with the saved
// session ID.
func (s *replSession) cmdResume(arg string) {
	if arg == "" {
		fmt.Fprintln(s.a.io.err, ":resume needs a session id; :sessions lists them")
		return
	}
	l, err := s.a.sh.Agent().Resume(context.Background(), arg)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			fmt.Fprintf(s.a.io.err, "no saved session %s; :sessions lists them\n", arg)
			return
		}
		fmt.Fprintln(s.a.io.err, detail(err))
		if l == nil {
			return
		}
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s.a.io.err, "warning: %s\n", w)
	}
	fmt.Fprintf(s.a.io.err, "resumed session %s (%d turns)\n", l.ID, l.Turns)
}

// newConversationNotice is what :new says: the id of the new session, when
// conversations are saved.
func (s *replSession) newConversationNotice() string {
	if id := s.a.sh.Agent().Agent().SessionID(); id != "" {
		return "new conversation (session " + id + ")"
	}
	return "new conversation"
}
