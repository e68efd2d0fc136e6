package agentapi

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// history is the conversation as one model function sees it, kept
// across turns: each message becomes a *script.Shared once, so a binding
// converts it into script values once, and a model called every turn
// with the whole conversation converts only the messages new since the
// turn before. The cost of a turn grows with the history only by a
// comparison and a slot per message.
//
// Starlark freezes shared values: a model function that changes a
// message in place gets an error (it may build new messages from them).
type history struct {
	mu     sync.Mutex
	system string
	sysVal *script.Shared
	msgs   []provider.Message // what vals were made of
	vals   []*script.Shared
	src    []provider.Message // the last request's, which keeps its array alive
	// out is the last value, the system prompt's first when there is
	// one: the messages kept are kept in it too, so a turn appends only
	// its own. Bindings convert the list into their own and keep nothing
	// of it.
	out     []any
	withSys bool
}

// value is messagesValue(req), reusing the values of the messages that
// begin req as they began the last request.
func (h *history) value(req provider.Request) []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	withSys := req.System != ""
	if withSys && (h.sysVal == nil || h.system != req.System) {
		h.system = req.System
		h.sysVal = script.NewShared(map[string]any{"role": provider.RoleSystem, "content": req.System})
		h.out = h.out[:0] // its first element changes
	}
	if withSys != h.withSys {
		h.withSys = withSys
		h.out = h.out[:0]
	}
	keep := 0
	if len(h.msgs) <= len(req.Messages) && len(h.msgs) > 0 && unsafe.SliceData(req.Messages) == unsafe.SliceData(h.src) {
		// The last request's array, grown: the agent's conversation,
		// whose messages never change (see agent.LifecycleData.Request).
		keep = len(h.msgs)
	} else {
		// A before_model hook may have edited the request: what differs
		// from the last one, and all after it, is converted anew.
		for keep < len(h.msgs) && keep < len(req.Messages) && sameForScripts(&h.msgs[keep], &req.Messages[keep]) {
			keep++
		}
	}
	h.src = req.Messages
	clear(h.vals[keep:])
	h.msgs, h.vals = h.msgs[:keep], h.vals[:keep]
	for _, m := range req.Messages[keep:] {
		h.msgs = append(h.msgs, m)
		h.vals = append(h.vals, script.NewShared(messageValue(m)))
	}
	first := 0
	if withSys {
		first = 1
	}
	if len(h.out) < first {
		h.out = append(h.out[:0], h.sysVal)
	}
	if done := len(h.out) - first; done > keep {
		clear(h.out[first+keep:])
		h.out = h.out[:first+keep]
	}
	for _, v := range h.vals[len(h.out)-first:] {
		h.out = append(h.out, v)
	}
	return h.out[:len(h.out):len(h.out)]
}

// sameForScripts reports whether two messages have the same value for
// scripts (see messageValue), which shows neither blocks nor cache
// marks. The messages of consecutive requests share their text, which
// Go compares by pointer first; the messages themselves are compared in
// place, as copying two of them costs more than comparing them.
func sameForScripts(a, b *provider.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Name != b.Name ||
		a.IsError != b.IsError || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || !bytes.Equal(x.Args, y.Args) || (x.Args == nil) != (y.Args == nil) {
			return false
		}
	}
	return true
}
