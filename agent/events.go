package agent

// Event is something the agent did, for displays and logs (--json). The
// JSON form has sorted keys and omits what does not apply.
type Event struct {
	// Type is model_request, model_response, text (streamed text),
	// tool_output (what a tool showed the person), tool_error (a call
	// that was refused or failed: Tool, CallID, ErrorKind and the message
	// in Text), tool_call_dropped (a
	// call the model could not finish before its token limit: Tool,
	// CallID, StopReason, and Text saying so), compaction (the
	// conversation was compacted: the fields below, and the summary
	// request's token counts when one was made), budget_exhausted (a
	// budget stopped the run: Text says which, its limit, what was spent
	// and how to raise it), turn_end, subagent_start, subagent_end or
	// session_error (the conversation is no longer saved: Text says why).
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
	// Agent and ParentAgent name the subagent an event is about and its
	// parent: set on every event of a subagent (a top-level agent's
	// events leave them out), and on subagent_start (a child begins:
	// Text is its prompt, Tools the number of tools it may use) and
	// subagent_end (it ended: Stop and Turns are its reply's, Text its
	// error if it failed).
	Agent       string `json:"agent,omitempty"`
	ParentAgent string `json:"parent_agent,omitempty"`
	Stop        string `json:"stop,omitempty"`
	Turns       int    `json:"turns,omitempty"`
	// compaction: why ("threshold": the next request would pass the
	// threshold of the context window; "asked": Compact), the
	// conversation's length and the next request's estimated tokens
	// before and after, how many messages the summary replaced and how
	// many were kept because they were pinned.
	Reason         string `json:"reason,omitempty"`
	MessagesBefore int    `json:"messages_before,omitempty"`
	MessagesAfter  int    `json:"messages_after,omitempty"`
	TokensBefore   int    `json:"tokens_before,omitempty"`
	TokensAfter    int    `json:"tokens_after,omitempty"`
	Summarised     int    `json:"summarised,omitempty"`
	Pinned         int    `json:"pinned,omitempty"`
}

// emit gives e to the observer, one event at a time: a top-level agent
// takes the tree's lock here, a subagent's observer takes it itself (see
// newChild).
func (a *Agent) emit(e Event) {
	if a.cfg.observer == nil {
		return
	}
	if a.sub.up == nil {
		a.sub.observe.Lock()
		defer a.sub.observe.Unlock()
	}
	a.cfg.observer(e)
}
