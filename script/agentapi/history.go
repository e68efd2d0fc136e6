package agentapi

import (
	"bytes"
	"sync"

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
}

// value is messagesValue(req), reusing the values of the messages that
// begin req as they began the last request.
func (h *history) value(req provider.Request) []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]any, 0, len(req.Messages)+1)
	if req.System != "" {
		if h.sysVal == nil || h.system != req.System {
			h.system = req.System
			h.sysVal = script.NewShared(map[string]any{"role": provider.RoleSystem, "content": req.System})
		}
		out = append(out, h.sysVal)
	}
	// A before_model hook may have edited the request: what differs from
	// the last one, and all after it, is converted anew.
	keep := 0
	for keep < len(h.msgs) && keep < len(req.Messages) && sameForScripts(h.msgs[keep], req.Messages[keep]) {
		keep++
	}
	clear(h.vals[keep:])
	h.msgs, h.vals = h.msgs[:keep], h.vals[:keep]
	for _, m := range req.Messages[keep:] {
		h.msgs = append(h.msgs, m)
		h.vals = append(h.vals, script.NewShared(messageValue(m)))
	}
	for _, v := range h.vals {
		out = append(out, v)
	}
	return out
}

// sameForScripts reports whether two messages have the same value for
// scripts (see messageValue), which shows neither blocks nor cache
// marks. The messages of consecutive requests share their text, which
// Go compares by pointer first.
func sameForScripts(a, b provider.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Name != b.Name ||
		a.IsError != b.IsError || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := a.ToolCalls[i], b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || !bytes.Equal(x.Args, y.Args) || (x.Args == nil) != (y.Args == nil) {
			return false
		}
	}
	return true
}
