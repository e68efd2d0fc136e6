package agent

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

func TestCallTurn(t *testing.T) {
	for id, want := range map[string]int{
		"call_1_1": 1, "call_12_3": 12, "call_7_x": 7,
		"call_0_1": 0, "call_-2_1": 0, "call_x_1": 0, "call_5": 0, "call_": 0, "": 0,
		"toolu_01Read": 0, "call_Read01": 0, "call_99999999999_1": 0,
	} {
		if got := callTurn(id); got != want {
			t.Errorf("callTurn(%q) = %d, want %d", id, got, want)
		}
	}
}

// TestCallIDsUniqueInAConversation: calls that come without ids (from a
// local OpenAI-compatible server) are named uniquely across the Runs of a
// conversation, so that switching to Anthropic, which refuses a history
// holding an id twice, goes on; a provider's own ids are kept.
func TestCallIDsUniqueInAConversation(t *testing.T) {
	local, localURL := serveStreams(t, "openai_no_ids.sse", "openai_final.sse", "openai_no_ids.sse", "openai_final.sse")
	claude, claudeURL := serveStreams(t, "anthropic_final.sse")
	// An observer makes the Runs stream, as the fixtures do.
	a, err := New(WithProvider(httpAdapters[0].open(t, localURL)), WithPermissions(executor.PermissionsAllowAll), WithObserver(func(Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	read := goTool("read_file", func(context.Context, json.RawMessage) (any, error) { return "text", nil })
	if err := a.RegisterTools(read); err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{"read them", "read them again"} {
		if _, err := a.Run(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, m := range a.Messages() {
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
		}
	}
	if got, want := ids, []string{"call_1_1", "call_1_2", "call_2_1", "call_2_2"}; !slices.Equal(got, want) {
		t.Errorf("call ids %q, want %q", got, want)
	}

	// The OpenAI request of the second Run holds each id once.
	var chat struct {
		Messages []struct {
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(local.body(4)), &chat); err != nil {
		t.Fatal(err)
	}
	calls, results := map[string]int{}, map[string]int{}
	for _, m := range chat.Messages {
		for _, tc := range m.ToolCalls {
			calls[tc.ID]++
		}
		if m.ToolCallID != "" {
			results[m.ToolCallID]++
		}
	}
	for _, id := range []string{"call_1_1", "call_1_2", "call_2_1", "call_2_2"} {
		if calls[id] != 1 || results[id] != 1 {
			t.Errorf("the last OpenAI request holds %s in %d calls and %d results, want 1 and 1", id, calls[id], results[id])
		}
	}

	// Switched to Anthropic, the conversation goes on, each tool_use id
	// once, each tool_result after its tool_use.
	a.SetProvider(httpAdapters[1].open(t, claudeURL), "")
	if _, err := a.Run(context.Background(), "now summarise"); err != nil {
		t.Fatal(err)
	}
	var msgs struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(claude.body(1)), &msgs); err != nil {
		t.Fatal(err)
	}
	uses := map[string]bool{}
	for _, m := range msgs.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(m.Content, &blocks) // a string content is no blocks
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				if uses[b.ID] {
					t.Errorf("tool_use id %s twice in the Anthropic request", b.ID)
				}
				uses[b.ID] = true
			case "tool_result":
				if !uses[b.ToolUseID] {
					t.Errorf("tool_result for %s before any tool_use of that id", b.ToolUseID)
				}
			}
		}
	}
	if len(uses) != 4 {
		t.Errorf("%d tool_use ids in the Anthropic request, want 4", len(uses))
	}
}

// TestCallIDsKeepTheProvidersOwn: an answer whose calls partly have ids
// keeps them and names the others, its cut-off call too, after the
// conversation's ids so made.
func TestCallIDsKeepTheProvidersOwn(t *testing.T) {
	conv := []provider.Message{
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "call_4_1"}, {ID: "call_Own9"}}},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "call_2_1"}}},
	}
	resp := &provider.Response{ToolCalls: []provider.ToolCall{{ID: "toolu_x"}, {}, {}}, Incomplete: []provider.ToolCall{{}}}
	nameCalls(conv, resp)
	var got []string
	for _, tc := range slices.Concat(resp.ToolCalls, resp.Incomplete) {
		got = append(got, tc.ID)
	}
	if want := []string{"toolu_x", "call_5_2", "call_5_3", "call_5_4"}; !slices.Equal(got, want) {
		t.Errorf("ids %q, want %q", got, want)
	}
	// An answer's own id of that form counts too: no two calls of it
	// share an id.
	resp = &provider.Response{ToolCalls: []provider.ToolCall{{ID: "call_1_2"}, {}}}
	nameCalls(nil, resp)
	if a, b := resp.ToolCalls[0].ID, resp.ToolCalls[1].ID; a != "call_1_2" || b != "call_2_2" {
		t.Errorf("ids %q and %q, want call_1_2 and call_2_2", a, b)
	}
}
