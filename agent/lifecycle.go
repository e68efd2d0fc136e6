package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/provider"
)

// LifecycleEvent names a step of the conversation that hooks can watch.
type LifecycleEvent string

// The lifecycle events, in the order a session meets them.
const (
	SessionStart LifecycleEvent = "session_start" // before the first prompt of a session
	UserPrompt   LifecycleEvent = "user_prompt"   // a prompt arrives: rewrite Prompt, or refuse with an error
	// BeforeCompact: the conversation is about to be compacted (compact.go):
	// read Compact.Messages, set its Summary, add to its Pin, or refuse with an error.
	BeforeCompact LifecycleEvent = "before_compact"
	BeforeModel   LifecycleEvent = "before_model" // a request is about to go: edit Request, or refuse
	AfterModel    LifecycleEvent = "after_model"  // a response came: read Response, or refuse it
	TurnEnd       LifecycleEvent = "turn_end"     // a model turn (and its tool calls) ended
	SessionEnd    LifecycleEvent = "session_end"  // Reset or Close ended the session
)

// LifecycleEvents lists every event, in order.
var LifecycleEvents = []LifecycleEvent{SessionStart, UserPrompt, BeforeCompact, BeforeModel, AfterModel, TurnEnd, SessionEnd}

// gating reports whether an error from the event's hooks stops the run,
// and whether its hooks run in registration order (the others run in
// reverse, so a hook pair nests like middleware).
func (e LifecycleEvent) gating() bool {
	return e == SessionStart || e == UserPrompt || e == BeforeCompact || e == BeforeModel || e == AfterModel
}

func (e LifecycleEvent) inOrder() bool {
	return e == SessionStart || e == UserPrompt || e == BeforeCompact || e == BeforeModel
}

// ParseLifecycleEvent checks an event name.
func ParseLifecycleEvent(s string) (LifecycleEvent, error) {
	for _, e := range LifecycleEvents {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown lifecycle event %q; the events are session_start, user_prompt, before_compact, before_model, after_model, turn_end, session_end", s)
}

// LifecycleData is what a lifecycle hook sees, and may change where the
// event allows it.
type LifecycleData struct {
	Event LifecycleEvent
	Turn  int // the model turn of this Run, from 1; 0 outside turns
	// Agent is the id of the agent the event is about, and ParentAgent
	// its parent's ("" for a top-level agent): a subagent fires its
	// parent's hooks (see Agent.Spawn).
	Agent, ParentAgent string
	// Prompt is the user's prompt (user_prompt may rewrite it).
	Prompt string
	// Request is the request about to be sent (before_model may edit it)
	// or that was sent (after_model). Its Messages share their array with
	// the conversation: a hook may append to them or replace the slice,
	// and copies it before changing a message in it (as
	// MarkCacheBreakpoints does), or the change would stick to the
	// conversation.
	Request *provider.Request
	// Response is the model's answer (after_model, turn_end).
	Response *provider.Response
	// Reply is the Run's outcome so far (turn_end).
	Reply *Reply
	// Compact is what a before_compact hook sees and may change; nil at
	// the other events.
	Compact *CompactData
}

// CompactData is a compaction as a before_compact hook sees it.
type CompactData struct {
	// Messages are the messages the compaction would replace by a
	// summary, oldest first: the conversation without what is kept anyway
	// (the latest user request and the recent tail). A hook reads them and
	// leaves them unchanged.
	Messages []provider.Message
	// Summary, when a hook sets it, is the summary of the compacted
	// messages: the default summary request is not made.
	Summary string
	// Pin lists indexes into Messages that a hook keeps word for word in
	// this compaction (with the rest of their tool call's group); later
	// hooks see earlier hooks' Summary and Pin.
	Pin []int
}

// LifecycleHook is a function run at one lifecycle event.
type LifecycleHook struct {
	Name  string
	Event LifecycleEvent
	Func  func(ctx context.Context, d *LifecycleData) error
}

// LifecycleProvider is implemented by extensions that contribute
// lifecycle hooks.
type LifecycleProvider interface {
	LifecycleHooks() []LifecycleHook
}

// On registers a lifecycle hook.
func (a *Agent) On(h LifecycleHook) error {
	if _, err := ParseLifecycleEvent(string(h.Event)); err != nil {
		return err
	}
	if h.Func == nil {
		return fmt.Errorf("lifecycle hook %q has no function", h.Name)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hooks = append(a.hooks, h)
	return nil
}

// fire runs the hooks of d.Event. A gating event stops at the first error
// (the step is refused); the others run every hook and join the errors.
func (a *Agent) fire(ctx context.Context, d *LifecycleData) error {
	d.Agent, d.ParentAgent = a.ID(), a.ParentID()
	a.mu.Lock()
	var hooks []LifecycleHook
	for _, h := range a.hooks {
		if h.Event == d.Event {
			hooks = append(hooks, h)
		}
	}
	a.mu.Unlock()
	if !d.Event.inOrder() {
		for i, j := 0, len(hooks)-1; i < j; i, j = i+1, j-1 {
			hooks[i], hooks[j] = hooks[j], hooks[i]
		}
	}
	var errs []error
	for _, h := range hooks {
		if err := runHook(ctx, h, d); err != nil {
			err = &HookError{Event: d.Event, Hook: h.Name, Err: err}
			if d.Event.gating() {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runHook runs one hook, turning a panic into an error (fail closed).
func runHook(ctx context.Context, h LifecycleHook, d *LifecycleData) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h.Func(ctx, d)
}

// HookError is the error of a lifecycle hook.
type HookError struct {
	Event LifecycleEvent
	Hook  string
	Err   error
}

func (e *HookError) Error() string {
	verb := "failed"
	switch e.Event {
	case UserPrompt:
		verb = "refused the prompt"
	case BeforeCompact:
		verb = "refused the compaction"
	case BeforeModel:
		verb = "refused the request"
	case AfterModel:
		verb = "refused the response"
	}
	return fmt.Sprintf("%s hook %q %s: %v", e.Event, e.Hook, verb, e.Err)
}

func (e *HookError) Unwrap() error { return e.Err }

// startSession runs session_start once per session.
func (a *Agent) startSession(ctx context.Context) error {
	a.mu.Lock()
	started := a.started
	a.started = true
	a.mu.Unlock()
	if started {
		return nil
	}
	if err := a.fire(ctx, &LifecycleData{Event: SessionStart}); err != nil {
		a.mu.Lock()
		a.started = false
		a.mu.Unlock()
		return err
	}
	return nil
}

// endSession runs session_end if a session started.
func (a *Agent) endSession(ctx context.Context) error {
	a.mu.Lock()
	started := a.started
	a.started = false
	a.mu.Unlock()
	if !started {
		return nil
	}
	return a.fire(ctx, &LifecycleData{Event: SessionEnd})
}
