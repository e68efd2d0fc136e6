package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// scriptedModel is an Anthropic Messages API endpoint that asks for one
// tool call per turn, in order (the next one after as many tool_results
// as the conversation holds), and then ends the conversation.
type scriptedModel struct {
	commands []string       // Bash calls, when calls is nil
	calls    []scriptedCall // any tool's calls

	mu    sync.Mutex
	turns int      // main-loop requests answered
	tools []string // the tools the last main-loop request offered
}

// scriptedCall is one tool call the model makes.
type scriptedCall struct {
	Name  string
	Input map[string]any
}

// call is the model's n-th tool call.
func (m *scriptedModel) call(n int) (scriptedCall, bool) {
	if m.calls != nil {
		if n < len(m.calls) {
			return m.calls[n], true
		}
		return scriptedCall{}, false
	}
	if n < len(m.commands) {
		return scriptedCall{Name: "Bash", Input: map[string]any{"command": m.commands[n], "description": "touch a marker file"}}, true
	}
	return scriptedCall{}, false
}

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		// count_tokens and anything else the CLI tries: not part of the script.
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Stream   bool `json:"stream"`
		Tools    []struct{ Name string }
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	hasBash := false
	var offered []string
	for _, tool := range req.Tools {
		hasBash = hasBash || tool.Name == "Bash"
		offered = append(offered, tool.Name)
	}
	if !hasBash {
		// A side request (a title, a summary): a short text answer.
		writeMessage(w, req.Stream, nil, "ok")
		return
	}
	results := 0
	for _, msg := range req.Messages {
		var blocks []struct{ Type string }
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results++
			}
		}
	}
	m.mu.Lock()
	m.turns++
	m.tools = offered
	m.mu.Unlock()
	if c, ok := m.call(results); ok {
		writeMessage(w, req.Stream, &toolUse{ID: fmt.Sprintf("toolu_%02d", results), Name: c.Name, Input: c.Input}, "")
		return
	}
	writeMessage(w, req.Stream, nil, "done")
}

func (m *scriptedModel) answered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.turns
}

// offered reports the tools the last main-loop request offered.
func (m *scriptedModel) offered() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools
}

// toolResultText flattens a tool_result's content, a string or text blocks.
func toolResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

type toolUse struct {
	ID, Name string
	Input    map[string]any
}

// writeMessage answers with one content block, a tool_use or a text,
// as server-sent events when the request streams.
func writeMessage(w http.ResponseWriter, stream bool, use *toolUse, text string) {
	stop := "end_turn"
	block := map[string]any{"type": "text", "text": text}
	if use != nil {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": use.ID, "name": use.Name, "input": use.Input}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_scripted", "type": "message", "role": "assistant",
			"model": "claude-scripted", "content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	send("message_start", map[string]any{"message": map[string]any{"id": "msg_scripted", "type": "message", "role": "assistant",
		"model": "claude-scripted", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if use != nil {
		input, _ := json.Marshal(block["input"])
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": use.ID, "name": use.Name, "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{})
}
