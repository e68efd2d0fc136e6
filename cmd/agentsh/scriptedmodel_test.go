package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// scriptedModel is an Anthropic Messages API endpoint that asks for one
// Bash call per turn, in order (the next one after as many tool_results
// as the conversation holds), and then ends the conversation.
type scriptedModel struct {
	commands []string

	mu    sync.Mutex
	turns int // main-loop requests answered
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
	for _, tool := range req.Tools {
		hasBash = hasBash || tool.Name == "Bash"
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
	m.mu.Unlock()
	if n := results; n < len(m.commands) {
		writeMessage(w, req.Stream, &toolUse{ID: fmt.Sprintf("toolu_%02d", n), Command: m.commands[n]}, "")
		return
	}
	writeMessage(w, req.Stream, nil, "done")
}

func (m *scriptedModel) answered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.turns
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

type toolUse struct{ ID, Command string }

// writeMessage answers with one content block, a Bash tool_use or a text,
// as server-sent events when the request streams.
func writeMessage(w http.ResponseWriter, stream bool, use *toolUse, text string) {
	stop := "end_turn"
	block := map[string]any{"type": "text", "text": text}
	if use != nil {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": use.ID, "name": "Bash",
			"input": map[string]any{"command": use.Command, "description": "touch a marker file"}}
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
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": use.ID, "name": "Bash", "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{})
}
