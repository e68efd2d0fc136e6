package agentapi

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// history is the conversation as one model function sees it, kept
// across turns: each message becomes a *script.Shared once, and the list
// a script.SharedList that grows from turn to turn, so a binding
// converts each message into script values once and a model called every
// turn with the whole conversation costs the same however long the
// conversation.
//
// Starlark freezes shared values: a model function that changes the list
// or a message in place gets an error (it may build new ones from them).
type history struct {
	mu      sync.Mutex
	withSys bool
	system  string             // the system prompt, first in items when withSys
	msgs    []provider.Message // what the messages of items were made of
	src     []provider.Message // the last request's, which keeps its array alive
	items   []*script.Shared   // the system prompt's value when withSys, then the messages'
	grows   *script.Shared     // the list's Grows: new when items is not the last items extended
}

// value is messagesValue(req) as a script.SharedList, reusing the values
// of the messages that begin req as they began the last request.
func (h *history) value(req provider.Request) script.SharedList {
	h.mu.Lock()
	defer h.mu.Unlock()
	withSys := req.System != ""
	if h.grows == nil || withSys != h.withSys || req.System != h.system {
		// A new first value: a new list, with the messages' values kept.
		msgs := h.items[len(h.items)-len(h.msgs):]
		items := make([]*script.Shared, 0, len(msgs)+1)
		if withSys {
			items = append(items, script.NewShared(map[string]any{"role": provider.RoleSystem, "content": req.System}))
		}
		h.items, h.withSys, h.system = append(items, msgs...), withSys, req.System
		h.grows = script.NewShared(nil)
	}
	first := len(h.items) - len(h.msgs)
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
	if keep < len(h.msgs) {
		// Not the last list extended: a new one, in an array of its own,
		// as the lists already passed keep theirs.
		h.items = append([]*script.Shared(nil), h.items[:first+keep]...)
		h.msgs = h.msgs[:keep]
		h.grows = script.NewShared(nil)
	}
	h.src = req.Messages
	for _, m := range req.Messages[keep:] {
		h.msgs = append(h.msgs, m)
		h.items = append(h.items, script.NewShared(messageValue(m)))
	}
	return script.SharedList{Items: h.items[:len(h.items):len(h.items)], Grows: h.grows}
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
