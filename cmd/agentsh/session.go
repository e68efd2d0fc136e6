package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
)

// sessionObserver shows a session_error (the conversation is no longer
// saved) on stderr; with --json it is an event like the others.
func (a *app) sessionObserver(next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		if e.Type == "session_error" && a.events == nil {
			fmt.Fprintf(a.io.err, "agentsh: warning: %s\n", e.Text)
		}
		next(e)
	}
}

// seeSessions says how to list the saved sessions.
const seeSessions = "list them with 'agentsh sessions' (or :sessions in the REPL)"

// startSession acts on --session NAME, --resume [ID] and --continue: the
// agent goes on with the session they name. A resumed session says so on
// stderr (with --json: a session_resumed event), with the loader's
// warnings.
func (a *app) startSession() error {
	o := a.opts
	sess := a.sh.Agent()
	st := sess.Sessions()
	if st == nil || (o.session == "" && !o.resume && !o.continueLast) {
		return nil
	}
	ctx := context.Background()
	var (
		l   *session.Loaded
		err error
	)
	switch {
	case o.session != "":
		l, _, err = sess.UseSession(ctx, o.session)
		if err != nil {
			return fmt.Errorf("--session %s: %w", o.session, err)
		}
		if l == nil {
			return nil // a new session of that name
		}
	case o.resume && o.resumeID != "":
		l, err = sess.Resume(ctx, o.resumeID)
		if errors.Is(err, session.ErrNotFound) {
			return usagef("--resume %s: no saved session of that id; %s", o.resumeID, seeSessions)
		}
	default:
		workdir, flag := "", "--resume"
		if o.continueLast {
			workdir, flag = st.AbsWorkdir(), "--continue"
		}
		info, ok, lerr := st.Latest(workdir)
		if lerr != nil {
			return fmt.Errorf("%s: %w", flag, lerr)
		}
		if !ok {
			where := "yet"
			if workdir != "" {
				where = "for this workdir yet"
			}
			return usagef("%s: no saved session %s; run without %s to start one (%s)", flag, where, flag, seeSessions)
		}
		l, err = sess.Resume(ctx, info.ID)
	}
	if err != nil {
		if l == nil {
			return err
		}
		a.sessionWarn(err.Error()) // a session_end hook of the conversation it replaced
	}
	for _, w := range l.Warnings {
		a.sessionWarn(w)
	}
	if a.events != nil {
		a.events.emit(map[string]any{"event": "session_resumed", "session": l.ID, "turns": l.Turns, "messages": len(l.Messages)})
	} else {
		fmt.Fprintf(a.io.err, "agentsh: resumed session %s (%d turns)\n", l.ID, l.Turns)
	}
	return nil
}

// sessionWarn shows a warning about a session on stderr, or as a
// session_warning event with --json.
func (a *app) sessionWarn(msg string) { a.warn("session_warning", msg) }

// warn shows a warning on stderr, or as an event of the given type with
// --json where the events are the stream: call, tools and hook print
// their own JSON on stdout.
func (a *app) warn(event, msg string) {
	if a.events != nil && a.opts.headlessCommand() {
		a.events.emit(map[string]any{"event": event, "text": msg})
		return
	}
	fmt.Fprintf(a.io.err, "agentsh: warning: %s\n", msg)
}

// listSessions is agentsh sessions: the saved sessions of the workdir,
// the most recent first (--json: one object per line).
func listSessions(o *options, std stdio) int {
	st := &session.Store{Workdir: o.workdir}
	list, err := st.List(st.AbsWorkdir())
	if err != nil {
		fmt.Fprintf(std.err, "agentsh: %v\n", err)
		return 1
	}
	if o.jsonOut {
		for _, i := range list {
			b, _ := core.MarshalJSON(map[string]any{"id": i.ID, "turns": i.Turns, "messages": i.Messages,
				"last_prompt": i.LastPrompt, "provider": i.Provider, "workdir": i.Workdir, "path": i.Path})
			std.out.Write(append(b, '\n'))
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "no saved sessions for %s\n", st.AbsWorkdir())
		return 0
	}
	writeSessions(std.out, list, "")
	return 0
}

// writeSessions prints one session a line: id, turns, last prompt; the
// current one marked with *.
func writeSessions(w io.Writer, list []session.Info, current string) {
	for _, i := range list {
		mark := " "
		if i.ID == current {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-24s %4d turns  %s\n", mark, i.ID, i.Turns, summary(i.LastPrompt, 60))
	}
}

// summary is the first line of s, at most n characters.
func summary(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}
