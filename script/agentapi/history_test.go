package agentapi

import (
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// TestHistoryReusesMessages: each turn's messages are the values of the
// turn before plus the new ones, the same *script.Shared each, and equal
// to messagesValue's, in a list that grows (the same Grows); a message a
// hook changed is made anew, with all after it, and so is the list; a
// new system prompt makes a new list of the messages' values.
func TestHistoryReusesMessages(t *testing.T) {
	user := provider.Message{Role: provider.RoleUser, Content: "go"}
	asst := provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"n":1}`)}}}
	tool := provider.Message{Role: provider.RoleTool, ToolCallID: "c1", Name: "t", Content: "ok"}
	var h history
	check := func(req provider.Request) script.SharedList {
		t.Helper()
		got := h.value(req)
		want := messagesValue(req)
		if len(got.Items) != len(want) {
			t.Fatalf("%d messages, want %d", len(got.Items), len(want))
		}
		for i, s := range got.Items {
			if script.Quote(s.V) != script.Quote(want[i]) {
				t.Errorf("message %d = %s, want %s", i, script.Quote(s.V), script.Quote(want[i]))
			}
		}
		if script.Quote(got.V()) != script.Quote(want) {
			t.Errorf("V() = %s, want %s", script.Quote(got.V()), script.Quote(want))
		}
		return got
	}
	turn1 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user}})
	turn2 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user, asst, tool}})
	if turn1.Items[0] != turn2.Items[0] || turn1.Items[1] != turn2.Items[1] || turn1.Grows != turn2.Grows {
		t.Errorf("turn 2 made the system prompt, the first message or the list anew")
	}
	// Blocks and cache marks are not for scripts: the value stays.
	marked := tool
	marked.Cache = true
	turn3 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user, asst, marked}})
	if turn3.Items[3] != turn2.Items[3] || turn3.Grows != turn2.Grows {
		t.Errorf("a cache mark made a message or the list anew")
	}
	// A hook changed the assistant's call: it and the tool result are new.
	edited := asst
	edited.ToolCalls = []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"n":2}`)}}
	turn4 := check(provider.Request{System: "Be brief.", Messages: []provider.Message{user, edited, tool}})
	if turn4.Items[1] != turn3.Items[1] || turn4.Items[2] == turn3.Items[2] || turn4.Items[3] == turn3.Items[3] || turn4.Grows == turn3.Grows {
		t.Errorf("after an edit: reuse of user %v, assistant %v, tool %v, list %v; want true, false, false, false",
			turn4.Items[1] == turn3.Items[1], turn4.Items[2] == turn3.Items[2], turn4.Items[3] == turn3.Items[3], turn4.Grows == turn3.Grows)
	}
	if turn3.Items[2].V.(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["args"].(map[string]any)["n"] != int64(1) {
		t.Errorf("an edit changed the list passed before it")
	}
	// A new system prompt: a new list, the messages' values kept.
	turn5 := check(provider.Request{System: "Other.", Messages: []provider.Message{user, edited, tool}})
	if turn5.Items[0] == turn4.Items[0] || turn5.Grows == turn4.Grows || turn5.Items[1] != turn4.Items[1] || turn5.Items[3] != turn4.Items[3] {
		t.Errorf("a new system prompt: reuse of system %v, list %v, user %v, tool %v; want false, false, true, true",
			turn5.Items[0] == turn4.Items[0], turn5.Grows == turn4.Grows, turn5.Items[1] == turn4.Items[1], turn5.Items[3] == turn4.Items[3])
	}
	if len(turn4.Items) != 4 || turn4.Items[0].V.(map[string]any)["content"] != "Be brief." {
		t.Errorf("a new system prompt changed the list passed before it")
	}
	// A new conversation shares nothing with the old one.
	other := check(provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "again"}}})
	if other.Items[0] == turn5.Items[1] || other.Grows == turn5.Grows {
		t.Errorf("a new conversation reused the old first message or list")
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
// the list, and add the new ones; the lists passed before keep their
// length.
func TestHistoryGrowingConversation(t *testing.T) {
	var h history
	conv := make([]provider.Message, 0, 8)
	var lists []script.SharedList
	for i := range 6 {
		conv = append(conv, provider.Message{Role: provider.RoleUser, Content: string(rune('a' + i))})
		req := provider.Request{Messages: conv}
		got := h.value(req)
		if script.Quote(got.V()) != script.Quote(messagesValue(req)) {
			t.Fatalf("turn %d: %s, want %s", i, script.Quote(got.V()), script.Quote(messagesValue(req)))
		}
		if i > 0 {
			last := lists[i-1]
			if got.Grows != last.Grows || got.Items[i-1] != last.Items[i-1] {
				t.Errorf("turn %d: the list or a message made anew", i)
			}
		}
		lists = append(lists, got)
	}
	for i, l := range lists {
		if len(l.Items) != i+1 {
			t.Errorf("list %d has %d messages now, want %d", i, len(l.Items), i+1)
		}
	}
}
