package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// apiResponse is a Message object, the non-streaming answer and the
// payload of message_start.
type apiResponse struct {
	Type       string         `json:"type"`
	Content    []respBlock    `json:"content"`
	StopReason string         `json:"stop_reason"`
	Usage      apiUsage       `json:"usage"`
	Error      *apiErrorField `json:"error"`
}

type respBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type apiUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

func (u apiUsage) usage() provider.Usage {
	return provider.Usage{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

// merge takes the counts that a later report (message_delta) gives.
func (u *apiUsage) merge(v apiUsage) {
	if v.InputTokens > 0 {
		u.InputTokens = v.InputTokens
	}
	if v.OutputTokens > 0 {
		u.OutputTokens = v.OutputTokens
	}
	if v.CacheReadInputTokens > 0 {
		u.CacheReadInputTokens = v.CacheReadInputTokens
	}
	if v.CacheCreationInputTokens > 0 {
		u.CacheCreationInputTokens = v.CacheCreationInputTokens
	}
}

type apiErrorField struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func protocolError(format string, args ...any) error {
	return &provider.Error{Kind: provider.ErrProtocol, Provider: name, Message: fmt.Sprintf(format, args...)}
}

// readMessage decodes a non-streaming answer.
func readMessage(r io.Reader) (provider.Response, error) {
	var m apiResponse
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		if provider.KindOf(err) != "" {
			return provider.Response{}, err // a broken limit
		}
		return provider.Response{}, &provider.Error{Kind: provider.ErrProtocol, Provider: name, Message: "decoding the response: " + err.Error(), Err: err}
	}
	if m.Type == "error" && m.Error != nil {
		return provider.Response{}, apiError(0, *m.Error)
	}
	out := provider.Response{StopReason: m.StopReason, Usage: m.Usage.usage()}
	var text strings.Builder
	for i, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			addToolUse(&out, b.ID, b.Name, b.Input, i == len(m.Content)-1)
		}
	}
	out.Content = text.String()
	return out, nil
}

// addToolUse adds a tool_use block to out. When the answer was cut off by
// the token limit (see provider.Response.CutOff) and the block is the last
// of the answer, it was being written when that happened: its input may be
// cut short even where it parses, so it goes to out.Incomplete, never to
// be run. Input that is not JSON is kept in InvalidArgs, for the agent to
// answer with an invalid_arguments result.
func addToolUse(out *provider.Response, id, tool string, input []byte, last bool) {
	call := provider.ToolCall{ID: id, Name: tool}
	if args, err := compactArgs(input); err == nil {
		call.Args = args
	} else {
		call.InvalidArgs = string(input)
	}
	if last && out.CutOff() {
		out.Incomplete = append(out.Incomplete, call)
		return
	}
	out.ToolCalls = append(out.ToolCalls, call)
}

// compactArgs returns a tool_use input as compact JSON; absent input is {}.
func compactArgs(in []byte) (json.RawMessage, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 || string(in) == "null" {
		return json.RawMessage(`{}`), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, in); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// streamEvent is the data of any streaming event.
type streamEvent struct {
	Type         string         `json:"type"`
	Index        int            `json:"index"`
	Message      *apiResponse   `json:"message"`
	ContentBlock *respBlock     `json:"content_block"`
	Delta        streamDelta    `json:"delta"`
	Usage        *apiUsage      `json:"usage"`
	Error        *apiErrorField `json:"error"`
}

type streamDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// streamBlock is a content block being assembled.
type streamBlock struct {
	typ, id, name string
	text          strings.Builder
	input         []byte // from content_block_start
	json          strings.Builder
}

var errStop = errors.New("message_stop")

// readStream assembles a streamed answer, passing text to stream as it
// arrives.
func readStream(r io.Reader, stream func(string)) (provider.Response, error) {
	blocks := map[int]*streamBlock{}
	var usage apiUsage
	var stopReason string
	started := false
	err := wire.ReadEvents(r, func(ev wire.Event) error {
		if ev.Data == "" {
			return nil
		}
		var e streamEvent
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return protocolError("decoding %s event: %v", ev.Name, err)
		}
		if e.Type == "" {
			e.Type = ev.Name
		}
		switch e.Type {
		case "message_start":
			started = true
			if e.Message != nil {
				usage = e.Message.Usage
				stopReason = e.Message.StopReason
			}
		case "content_block_start":
			if e.ContentBlock == nil {
				return protocolError("content_block_start %d without a content_block", e.Index)
			}
			b := &streamBlock{typ: e.ContentBlock.Type, id: e.ContentBlock.ID, name: e.ContentBlock.Name, input: e.ContentBlock.Input}
			blocks[e.Index] = b
			if b.typ == "text" && e.ContentBlock.Text != "" {
				b.text.WriteString(e.ContentBlock.Text)
				stream(e.ContentBlock.Text)
			}
		case "content_block_delta":
			b := blocks[e.Index]
			if b == nil {
				return protocolError("content_block_delta for block %d, which has not started", e.Index)
			}
			switch e.Delta.Type {
			case "text_delta":
				if b.typ == "text" && e.Delta.Text != "" {
					b.text.WriteString(e.Delta.Text)
					stream(e.Delta.Text)
				}
			case "input_json_delta":
				b.json.WriteString(e.Delta.PartialJSON)
			}
		case "message_delta":
			if e.Delta.StopReason != "" {
				stopReason = e.Delta.StopReason
			}
			if e.Usage != nil {
				usage.merge(*e.Usage)
			}
		case "message_stop":
			return errStop
		case "error":
			if e.Error == nil {
				return protocolError("error event without an error: %s", ev.Data)
			}
			return apiError(0, *e.Error)
		}
		// ping, content_block_stop and event types added later need nothing.
		return nil
	})
	switch {
	case errors.Is(err, errStop):
	case err != nil:
		var pe *provider.Error
		if errors.As(err, &pe) {
			return provider.Response{}, err
		}
		return provider.Response{}, &provider.Error{Kind: provider.ErrServer, Provider: name, Message: "reading the stream: " + err.Error(), Err: err}
	case !started:
		return provider.Response{}, protocolError("the stream ended without a message")
	default:
		return provider.Response{}, protocolError("the stream ended before message_stop")
	}

	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := provider.Response{StopReason: stopReason, Usage: usage.usage()}
	var text strings.Builder
	for n, i := range idx {
		b := blocks[i]
		switch b.typ {
		case "text":
			text.WriteString(b.text.String())
		case "tool_use":
			in := b.input
			if b.json.Len() > 0 {
				in = []byte(b.json.String())
			}
			addToolUse(&out, b.id, b.name, in, n == len(idx)-1)
		}
	}
	out.Content = text.String()
	return out, nil
}
