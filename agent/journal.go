package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// Journal saves a conversation as it happens, so that it can be resumed
// (package agent/session's Session implements it). The agent calls it
// from the goroutine running Run or Compact, from Resume, Reset and
// Close, and opens it from SessionID; never from two of them at once.
type Journal interface {
	// ID names the session.
	ID() string
	// Append records a message that joined the conversation; decisions
	// are the decision records of the call a tool result answers.
	Append(m provider.Message, decisions []core.Decision) error
	// Replace records that the conversation was replaced by msgs
	// (compaction), and why.
	Replace(msgs []provider.Message, why string) error
	// Commit marks the conversation whole and makes what was written
	// durable: at the end of a model turn (turn > 0, with its usage) and
	// of each Run (turn 0).
	Commit(turn int, usage provider.Usage) error
	// Close releases the journal.
	Close() error
}

// WithJournal saves every conversation of the agent: open is called for a
// new session when one is first needed — by the first Run, or SessionID —
// and again after Reset; providerName is the provider's Name then ("" if
// none yet).
//
// A journal that fails to open or write does not fail the run: the
// conversation goes on in memory, and a session_error event says that it
// is no longer saved (the journal is not written again until Reset or
// Resume). A run a person watches should not end because the disk is
// full; an unattended caller that needs the file checks for the event.
func WithJournal(open func(providerName string) (Journal, error)) Option {
	return func(c *config) { c.journal = open }
}

// journalState is the agent's current journal.
type journalState struct {
	mu     sync.Mutex
	j      Journal
	failed bool // a write failed and was reported: j is not written again
}

// SessionID names the session the conversation is saved in, or "" when
// it is not saved (no WithJournal, or the journal failed to open).
func (a *Agent) SessionID() string {
	j := a.currentJournal()
	if j == nil {
		return ""
	}
	return j.ID()
}

// Journal returns the journal the conversation is saved in, or nil.
func (a *Agent) Journal() Journal { return a.currentJournal() }

// currentJournal returns the journal, opening one if the agent saves its
// conversations and has none yet.
func (a *Agent) currentJournal() Journal {
	js := &a.journal
	js.mu.Lock()
	if js.j != nil || js.failed || a.cfg.journal == nil {
		j := js.j
		js.mu.Unlock()
		return j
	}
	js.mu.Unlock()
	name := ""
	if p := a.Provider(); p != nil {
		name = p.Name()
	}
	j, err := a.cfg.journal(name)
	js.mu.Lock()
	if js.j != nil { // opened meanwhile
		cur := js.j
		js.mu.Unlock()
		if j != nil {
			j.Close()
		}
		return cur
	}
	if err != nil {
		js.failed = true
		js.mu.Unlock()
		a.emit(Event{Type: "session_error", Text: fmt.Sprintf("the conversation is not saved: %v", err)})
		return nil
	}
	js.j = j
	js.mu.Unlock()
	return j
}

// journalled reports whether the agent saves its conversations
// (WithJournal); the option is fixed when the agent is made.
func (a *Agent) journalled() bool { return a.cfg.journal != nil }

// journalWrite runs fn on the journal; the first error is reported and
// ends the journal's writes.
func (a *Agent) journalWrite(fn func(Journal) error) {
	if !a.journalled() {
		return
	}
	j := a.currentJournal()
	if j == nil {
		return
	}
	js := &a.journal
	js.mu.Lock()
	if js.failed || js.j != j {
		js.mu.Unlock()
		return
	}
	err := fn(j)
	if err != nil {
		js.failed = true
	}
	js.mu.Unlock()
	if err != nil {
		a.emit(Event{Type: "session_error", Text: fmt.Sprintf("session %s is no longer saved: %v; the conversation goes on in memory", j.ID(), err)})
	}
}

// journalAppend records a message that joined the conversation.
func (a *Agent) journalAppend(m provider.Message) {
	if !a.journalled() {
		return // before the closure below, which would copy the message to the heap
	}
	a.journalWrite(func(j Journal) error { return j.Append(m, nil) })
}

// appendResult adds a tool result to the conversation, and to the journal
// with the decision records of its call.
func (a *Agent) appendResult(m provider.Message, res *core.Result) {
	a.mu.Lock()
	a.messages = append(a.messages, m)
	a.mu.Unlock()
	if a.journalled() {
		a.journalWrite(func(j Journal) error { return j.Append(m, res.Decisions) })
	}
}

// journalReplace records that the conversation was replaced by msgs.
func (a *Agent) journalReplace(msgs []provider.Message, why string) {
	if !a.journalled() {
		return // before the closure below, which would copy the message to the heap
	}
	a.journalWrite(func(j Journal) error { return j.Replace(msgs, why) })
}

// journalTurn commits a model turn, with its usage.
func (a *Agent) journalTurn(turn int, resp *provider.Response) {
	if !a.journalled() {
		return // before the closure below, which would copy the message to the heap
	}
	var u provider.Usage
	if resp != nil {
		u = resp.Usage
	}
	a.journalWrite(func(j Journal) error { return j.Commit(max(turn, 1), u) })
}

// journalEndRun commits the conversation as a Run leaves it, however it
// ended: the next Run goes on from there, and so does a resume.
func (a *Agent) journalEndRun() {
	if !a.journalled() {
		return // before the closure below, which would copy the message to the heap
	}
	a.journalWrite(func(j Journal) error { return j.Commit(0, provider.Usage{}) })
}

// endJournal closes the journal; the next conversation opens a new one.
func (a *Agent) endJournal() error {
	js := &a.journal
	js.mu.Lock()
	j := js.j
	js.j, js.failed = nil, false
	js.mu.Unlock()
	if j == nil {
		return nil
	}
	return j.Close()
}

// ErrRunning is the error of Resume while a Run is in progress.
var ErrRunning = errors.New("the agent is answering a prompt: resume a session when it is done")

// Resume makes msgs the conversation, saved from here on in j (a session
// loaded from its journal), without recording them again. The session
// before it ends (session_end hooks, its journal closed); the next Run
// starts the resumed one (session_start). It fails with ErrRunning while
// a Run is in progress; then j is not taken, and the caller closes it.
func (a *Agent) Resume(ctx context.Context, j Journal, msgs []provider.Message) error {
	select {
	case a.running <- struct{}{}:
	default:
		return ErrRunning
	}
	defer func() { <-a.running }()
	err := a.endSession(ctx)
	err = errors.Join(err, a.endJournal())
	a.journal.mu.Lock()
	a.journal.j = j
	a.journal.mu.Unlock()
	a.mu.Lock()
	a.messages = msgs[:len(msgs):len(msgs)]
	a.usage = usageBase{} // it described the conversation this replaces
	a.mu.Unlock()
	return err
}
