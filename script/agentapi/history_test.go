package agentapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// TestHistoryReusesMessages: each turn's messages are the values of the
// turn before plus the new ones, the same *script.Shared each, and equal
// to messagesValue's; a message a hook changed is made anew, with all
// after it, and so is the system prompt when it changes.
func TestHistoryReusesMessages(t *testing.T) {
	user := provider.Message{Role: provider.RoleUser, Content: "go"}
	asst := provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"n":1}`)}}}
	tool := provider.Message{Role: provider.RoleTool, ToolCallID: "c1", Name: "t", Content: "ok"}
	var h history
	check := func(req provider.Request) []any {
		t.Helper()
		got := slices.Clone(h.value(req)) // the next turn reuses its array
		want := messagesValue(req)
		if len(got) != len(want) {
			t.Fatalf("%d messages, want %d", len(got), len(want))
		}
		for i := range got {
			s, ok := got[i].(*script.Shared)
			if !ok || script.Quote(s.V) != script.Quote(want[i]) {
				t.Errorf("message %d = %v, want %s", i, got[i], script.Quote(want[i]))
			}
		}
		return got
	}
	turn1 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user}})
	turn2 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user, asst, tool}})
	if turn1[0] != turn2[0] || turn1[1] != turn2[1] {
		t.Errorf("turn 2 made the system prompt or the first message anew")
	}
	// Blocks and cache marks are not for scripts: the value stays.
	marked := tool
	marked.Cache = true
	turn3 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user, asst, marked}})
	if turn3[3] != turn2[3] {
		t.Errorf("a cache mark made a message anew")
	}
	// A hook changed the assistant's call: it and the tool result are new.
	edited := asst
	edited.ToolCalls = []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"n":2}`)}}
	turn4 := check(provider.Request{System: "Other.", Messages: []provider.Message{user, edited, tool}})
	if turn4[0] == turn3[0] || turn4[1] != turn3[1] || turn4[2] == turn3[2] || turn4[3] == turn3[3] {
		t.Errorf("after an edit: reuse of system %v, user %v, assistant %v, tool %v; want false, true, false, false",
			turn4[0] == turn3[0], turn4[1] == turn3[1], turn4[2] == turn3[2], turn4[3] == turn3[3])
	}
	// A new conversation shares nothing with the old one.
	other := check(provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "again"}}})
	if other[0] == turn4[1] {
		t.Errorf("a new conversation reused the old first message")
	}
}

// TestSameForScripts: every field scripts see tells two messages apart.
func TestSameForScripts(t *testing.T) {
	base := provider.Message{Role: provider.RoleTool, Content: "c", ToolCallID: "id", Name: "n",
		ToolCalls: []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{}`)}}}
	if !sameForScripts(&base, &base) {
		t.Fatal("a message differs from itself")
	}
	for name, change := range map[string]func(m *provider.Message){
		"role":         func(m *provider.Message) { m.Role = provider.RoleUser },
		"content":      func(m *provider.Message) { m.Content = "d" },
		"tool_call_id": func(m *provider.Message) { m.ToolCallID = "other" },
		"name":         func(m *provider.Message) { m.Name = "other" },
		"is_error":     func(m *provider.Message) { m.IsError = true },
		"calls":        func(m *provider.Message) { m.ToolCalls = nil },
		"call id": func(m *provider.Message) {
			m.ToolCalls = []provider.ToolCall{{ID: "c2", Name: "t", Args: json.RawMessage(`{}`)}}
		},
		"call name": func(m *provider.Message) {
			m.ToolCalls = []provider.ToolCall{{ID: "c1", Name: "u", Args: json.RawMessage(`{}`)}}
		},
		"call args": func(m *provider.Message) {
			m.ToolCalls = []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"a":1}`)}}
		},
		"nil args": func(m *provider.Message) { m.ToolCalls = []provider.ToolCall{{ID: "c1", Name: "t"}} },
	} {
		m := base
		change(&m)
		if sameForScripts(&base, &m) {
			t.Errorf("a change of %s went unseen", name)
		}
	}
}

// TestHistoryGrowingConversation: requests that share the conversation's
// array, as the agent sends them, keep every earlier message's value and
// add the new ones; a request of a new array (a new conversation) starts
// over.
func TestHistoryGrowingConversation(t *testing.T) {
	var h history
	conv := make([]provider.Message, 0, 8)
	var last []any
	for i := range 6 {
		conv = append(conv, provider.Message{Role: provider.RoleUser, Content: string(rune('a' + i))})
		req := provider.Request{Messages: conv}
		got := slices.Clone(h.value(req))
		want := messagesValue(req)
		for j := range want {
			if script.Quote(got[j].(*script.Shared).V) != script.Quote(want[j]) {
				t.Fatalf("turn %d: message %d = %v, want %s", i, j, got[j], script.Quote(want[j]))
			}
			if j < len(last) && got[j] != last[j] {
				t.Errorf("turn %d: message %d made anew", i, j)
			}
		}
		last = got
	}
	fresh := []provider.Message{{Role: provider.RoleUser, Content: "x"}}
	if got := h.value(provider.Request{Messages: fresh}); script.Quote(got[0].(*script.Shared).V) != `{"content":"x","role":"user"}` {
		t.Errorf("a new conversation's first message = %v", got[0])
	}
}
