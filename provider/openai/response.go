package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// The answer of POST /chat/completions, and of each chunk of a stream.
type chatResponse struct {
	Choices []choice   `json:"choices"`
	Usage   *chatUsage `json:"usage"`
	Error   *apiError  `json:"error"`
}

type choice struct {
	Index        int          `json:"index"`
	Message      *respMessage `json:"message"` // whole answers
	Delta        *respMessage `json:"delta"`   // stream chunks
	FinishReason string       `json:"finish_reason"`
}

type respMessage struct {
	Content   text           `json:"content"`
	Refusal   text           `json:"refusal"`
	ToolCalls []respToolCall `json:"tool_calls"`
}

type respToolCall struct {
	Index    *int   `json:"index"` // stream chunks only
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments arguments `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *chatUsage) usage() provider.Usage {
	var cached int
	if u.PromptTokensDetails != nil {
		cached = min(u.PromptTokensDetails.CachedTokens, u.PromptTokens)
	}
	return provider.Usage{
		InputTokens:     u.PromptTokens - cached,
		OutputTokens:    u.CompletionTokens,
		CacheReadTokens: cached,
	}
}

// text is message content: a string, null, or (from some servers) a list
// of text parts.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	switch b = bytes.TrimSpace(b); {
	case string(b) == "null":
		*t = ""
		return nil
	case len(b) > 0 && b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		*t = text(sb.String())
		return nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	*t = text(s)
	return err
}

// arguments are a tool call's arguments: the API sends a JSON string;
// some compatible servers send the object itself.
type arguments string

func (a *arguments) UnmarshalJSON(b []byte) error {
	switch b = bytes.TrimSpace(b); {
	case string(b) == "null":
		*a = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		err := json.Unmarshal(b, &s)
		*a = arguments(s)
		return err
	}
	*a = arguments(b)
	return nil
}

// apiError is the error object of an error body or a stream. Some
// compatible servers send a bare string instead, or a numeric code.
type apiError struct {
	Message string
	Type    string
	Code    string
}

func (e *apiError) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*e = apiError{Message: s}
		return nil
	}
	var o struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*e = apiError{Message: o.Message, Type: o.Type, Code: scalar(o.Code)}
	return nil
}

// scalar returns a JSON string's value, or a number as written.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if raw = bytes.TrimSpace(raw); string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// decodeResponse reads a whole (non-streamed) answer.
func (p *Provider) decodeResponse(data []byte, status int) (provider.Response, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return provider.Response{}, p.protocolError(status, "cannot decode the answer: %v (body %s)", err, snippet(data))
	}
	if r.Error != nil {
		return provider.Response{}, p.objectError(status, r.Error)
	}
	if len(r.Choices) == 0 || r.Choices[0].Message == nil {
		return provider.Response{}, p.protocolError(status, "the answer holds no message (body %s)", snippet(data))
	}
	c := r.Choices[0]
	out := provider.Response{Content: string(c.Message.Content), StopReason: c.FinishReason}
	if out.Content == "" {
		out.Content = string(c.Message.Refusal)
	}
	if r.Usage != nil {
		out.Usage = r.Usage.usage()
	}
	calls := make([]rawCall, len(c.Message.ToolCalls))
	for i, tc := range c.Message.ToolCalls {
		calls[i] = rawCall{tc.ID, tc.Function.Name, string(tc.Function.Arguments)}
	}
	if err := p.addToolCalls(&out, status, calls); err != nil {
		return provider.Response{}, err
	}
	return out, nil
}

// rawCall is a tool call as the server sent it.
type rawCall struct{ id, name, args string }

// addToolCalls checks the calls of an answer and adds them to out. When
// the answer was cut off by the token limit (finish_reason "length"), the
// last call is the one being written when it happened: it goes to
// out.Incomplete, never to be run. A call whose arguments are not JSON
// keeps them in InvalidArgs, for the agent to answer with an
// invalid_arguments result; the other calls of the answer are unaffected.
func (p *Provider) addToolCalls(out *provider.Response, status int, calls []rawCall) error {
	for i, c := range calls {
		// An id some local servers omit stays "": the agent names the
		// call uniquely in its conversation, where "call_0" of every
		// answer would not be.
		call := provider.ToolCall{ID: c.id, Name: c.name}
		args := strings.TrimSpace(c.args)
		switch {
		case args == "":
			call.Args = json.RawMessage("{}")
		case json.Valid([]byte(args)):
			call.Args = json.RawMessage(args)
		default:
			call.InvalidArgs = c.args
		}
		if out.CutOff() && i == len(calls)-1 {
			out.Incomplete = append(out.Incomplete, call)
			continue
		}
		if call.Name == "" {
			return p.protocolError(status, "tool call %s has no tool name", call.ID)
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	return nil
}

// partialCall is a tool call being assembled from stream chunks.
type partialCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

// readStream reads a server-sent event stream of chunks. Errors that are
// not *provider.Error come from reading the body.
func (p *Provider) readStream(body io.Reader, status int, stream func(string)) (provider.Response, error) {
	var (
		content  strings.Builder
		refusal  strings.Builder
		calls    []*partialCall
		byIndex  = map[int]*partialCall{}
		finish   string
		finished bool
		usage    *chatUsage
	)
	err := wire.ReadEvents(body, func(ev wire.Event) error {
		data := strings.TrimSpace(ev.Data)
		if data == "" {
			return nil
		}
		var chunk chatResponse
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			if ev.Name == "error" {
				return p.objectError(0, &apiError{Message: data})
			}
			return p.protocolError(status, "cannot decode a stream chunk: %v (data %s)", err, snippet([]byte(data)))
		}
		if chunk.Error != nil {
			return p.objectError(0, chunk.Error)
		}
		if ev.Name == "error" {
			return p.objectError(0, &apiError{Message: data})
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue // only one choice is asked for
			}
			if c.FinishReason != "" {
				finish, finished = c.FinishReason, true
			}
			d := c.Delta
			if d == nil {
				d = c.Message
			}
			if d == nil {
				continue
			}
			if d.Content != "" {
				content.WriteString(string(d.Content))
				stream(string(d.Content))
			}
			refusal.WriteString(string(d.Refusal))
			for _, tc := range d.ToolCalls {
				var pc *partialCall
				switch {
				case tc.Index != nil:
					pc = byIndex[*tc.Index]
				case tc.ID == "" && len(calls) > 0:
					pc = calls[len(calls)-1] // a continuation without an index
				}
				if pc == nil {
					idx := len(calls)
					if tc.Index != nil {
						idx = *tc.Index
					}
					pc = &partialCall{index: idx}
					calls = append(calls, pc)
					byIndex[idx] = pc
				}
				if tc.ID != "" {
					pc.id = tc.ID
				}
				if tc.Function.Name != "" {
					pc.name = tc.Function.Name
				}
				pc.args.WriteString(string(tc.Function.Arguments))
			}
		}
		return nil
	})
	if err != nil {
		return provider.Response{}, err
	}
	if !finished {
		return provider.Response{}, p.protocolError(status, "the stream ended before the answer was finished")
	}
	out := provider.Response{Content: content.String(), StopReason: finish}
	if out.Content == "" && refusal.Len() > 0 {
		out.Content = refusal.String()
		stream(out.Content)
	}
	if usage != nil {
		out.Usage = usage.usage()
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	raw := make([]rawCall, len(calls))
	for i, pc := range calls {
		raw[i] = rawCall{pc.id, pc.name, pc.args.String()}
	}
	if err := p.addToolCalls(&out, status, raw); err != nil {
		return provider.Response{}, err
	}
	return out, nil
}

func (p *Provider) protocolError(status int, format string, args ...any) error {
	return &provider.Error{Kind: provider.ErrProtocol, Provider: p.kind, Status: status, Message: fmt.Sprintf(format, args...)}
}

// statusError turns a failed HTTP answer into a *provider.Error.
func (p *Provider) statusError(status int, body []byte) error {
	e := parseErrorBody(body)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	kind := classify(status, e)
	return &provider.Error{Kind: kind, Provider: p.kind, Status: status, Message: e.Message, Hint: hint(p.kind, p.model, kind)}
}

// objectError turns an error object found in a successful answer or in a
// stream into a *provider.Error.
func (p *Provider) objectError(status int, e *apiError) error {
	msg := e.Message
	if msg == "" {
		msg = "the server reported an error"
		if e.Code != "" {
			msg += " (" + e.Code + ")"
		}
	}
	kind := classify(0, *e)
	return &provider.Error{Kind: kind, Provider: p.kind, Status: status, Message: msg, Hint: hint(p.kind, p.model, kind)}
}

// parseErrorBody finds the message in an error body: OpenAI's
// {"error":{"message","type","code"}}, a bare {"error":"..."}, a top-level
// "message" or "detail", or else the text itself.
func parseErrorBody(body []byte) apiError {
	var b struct {
		Error   *apiError       `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &b) == nil {
		switch {
		case b.Error != nil && b.Error.Message != "":
			return *b.Error
		case b.Message != "":
			return apiError{Message: b.Message, Type: b.Type, Code: scalar(b.Code)}
		case len(b.Detail) > 0 && string(b.Detail) != "null":
			if d := scalar(b.Detail); d != "" {
				return apiError{Message: d}
			}
		}
		if b.Error != nil {
			return *b.Error
		}
	}
	return apiError{Message: string(snippet(body))}
}

// classify finds the Kind of an error from the HTTP status and, where the
// status does not settle it (or there is none, in a stream), the error
// object's code, type and message.
func classify(status int, e apiError) provider.Kind {
	code := strings.ToLower(e.Code)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return provider.ErrAuth
	case status == http.StatusNotFound || code == "model_not_found":
		return provider.ErrUnknownModel
	case (status == http.StatusBadRequest || status == 0) && isOverflow(code, e.Message):
		return provider.ErrContextOverflow
	case status != 0:
		return provider.StatusKind(status)
	}
	// An error object without a status: from a stream, or inside a 200.
	typ := strings.ToLower(e.Type)
	switch {
	case code == "invalid_api_key" || typ == "authentication_error":
		return provider.ErrAuth
	case code == "rate_limit_exceeded" || typ == "rate_limit_error" || typ == "tokens" || typ == "requests":
		return provider.ErrRateLimited
	case typ == "invalid_request_error":
		return provider.ErrBadRequest
	}
	return provider.ErrServer
}

// isOverflow recognises the context-length errors of OpenAI, vLLM and the
// llama.cpp server.
func isOverflow(code, msg string) bool {
	msg = strings.ToLower(msg)
	return code == "context_length_exceeded" ||
		code == "exceed_context_size_error" ||
		strings.Contains(msg, "maximum context length") ||
		strings.Contains(msg, "exceeds the available context size")
}

// snippet shortens a body for an error message.
func snippet(b []byte) []byte {
	b = bytes.TrimSpace(b)
	const n = 512
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}
