package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/anthropic"
)

// TestCompactedOverAnthropic: compacted conversations of many shapes
// make valid Anthropic requests: turns alternate from the user's, every
// tool_use is answered by a tool_result in the next turn, and in a turn
// the tool results come before text.
func TestCompactedOverAnthropic(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	}))
	defer srv.Close()
	p, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	checked := 0
	for iter := 0; iter < 200; iter++ {
		w := &worker{}
		a, _ := compactAgent(t, w, WithContextWindow([]int{0, 500, 3000}[rng.Intn(3)]))
		a.replaceConversation(randomConversation(rng), "test")
		seed := rng.Int63()
		a.On(LifecycleHook{Name: "pins", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
			r := rand.New(rand.NewSource(seed))
			for i := range d.Compact.Messages {
				if r.Intn(4) == 0 {
					d.Compact.Pin = append(d.Compact.Pin, i)
				}
			}
			d.Compact.Summary = "summary"
			return nil
		}})
		if c, err := a.Compact(context.Background()); err != nil {
			t.Fatal(err)
		} else if c.Summarised == 0 {
			continue
		}
		checked++
		req := provider.Request{System: a.systemPrompt(), Messages: a.Messages(), Tools: a.toolDefs()}
		if _, err := p.Complete(context.Background(), req, nil); err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		if err := checkAnthropicTurns(body); err != nil {
			t.Fatalf("iteration %d: %v\n%s", iter, err, roles(req.Messages))
		}
	}
	if checked < 100 {
		t.Fatalf("only %d of 200 conversations were compacted", checked)
	}
}

func checkAnthropicTurns(body []byte) error {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	var pending []string // tool_use ids the next turn must answer
	for i, m := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Errorf("turn %d is %s, want %s", i, m.Role, want)
		}
		answered := map[string]bool{}
		text := false
		for _, b := range m.Content {
			switch b.Type {
			case "tool_result":
				if text {
					return fmt.Errorf("turn %d: a tool_result after text", i)
				}
				answered[b.ToolUseID] = true
			case "text":
				text = true
			}
		}
		for _, id := range pending {
			if !answered[id] {
				return fmt.Errorf("turn %d does not answer tool_use %s", i, id)
			}
		}
		if len(answered) != len(pending) {
			return fmt.Errorf("turn %d answers %d calls, %d were made", i, len(answered), len(pending))
		}
		pending = nil
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				pending = append(pending, b.ID)
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("the last turn's calls %v have no results", pending)
	}
	return nil
}
