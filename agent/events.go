package agent

// Event is something the agent did, for displays and logs (--json). The
// JSON form has sorted keys and omits what does not apply.
type Event struct {
	// Type is model_request, model_response, text (streamed text),
	// tool_output (what a tool showed the person), tool_error (a call
	// that was refused or failed: Tool, CallID, ErrorKind and the message
	// in Text), tool_call_dropped (a
	// call the model could not finish before its token limit: Tool,
	// CallID, StopReason, and Text saying so), budget_exhausted (a budget
	// stopped the run: Text says which, its limit, what was spent and how
	// to raise it) or turn_end.
	Type string `json:"event"`
	Turn int    `json:"turn,omitempty"`
	// model_request: the conversation length and the number of tools.
	Messages int `json:"messages,omitempty"`
	Tools    int `json:"tools,omitempty"`
	// model_response: the number of tool calls, why the model stopped,
	// and token counts.
	ToolCalls        int    `json:"tool_calls,omitempty"`
	StopReason       string `json:"stop_reason,omitempty"`
	InputTokens      int    `json:"input_tokens,omitempty"`
	OutputTokens     int    `json:"output_tokens,omitempty"`
	CacheReadTokens  int    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int    `json:"cache_write_tokens,omitempty"`
	// text, tool_output, tool_error: the text.
	Text string `json:"text,omitempty"`
	// tool_output, tool_error: the call.
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"call_id,omitempty"`
	// tool_error: the error's kind (rejected, failed, timeout, ...).
	ErrorKind string `json:"error_kind,omitempty"`
}

func (a *Agent) emit(e Event) {
	if a.cfg.observer != nil {
		a.cfg.observer(e)
	}
}
