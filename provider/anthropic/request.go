package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/images"
)

// maxBreakpoints is how many cache_control markers the API accepts.
const maxBreakpoints = 4

// apiRequest is the body of POST /v1/messages.
type apiRequest struct {
	Model     string       `json:"model"`
	MaxTokens int          `json:"max_tokens"`
	System    []block      `json:"system,omitempty"`
	Messages  []apiMessage `json:"messages"`
	Tools     []apiTool    `json:"tools,omitempty"`
	Stream    bool         `json:"stream,omitempty"`
}

type apiMessage struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type apiTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// block is any content block this adapter sends: text, image, tool_use,
// tool_result.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type cacheControl struct {
	Type string `json:"type"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// A breakpoint is where a cache_control marker may go.
type breakpoint struct {
	where int // toolBP, systemBP or messageBP
	i, j  int // tool or system block index; or message and block index
}

const (
	toolBP = iota
	systemBP
	messageBP
)

// buildRequest translates req into the API's request body.
func buildRequest(model string, maxTokens int, req provider.Request, stream bool) (apiRequest, error) {
	out := apiRequest{Model: model, MaxTokens: maxTokens, Stream: stream, Messages: []apiMessage{}}
	var bps []breakpoint

	lastTool := -1
	for i, t := range req.Tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
			schema = emptySchema
		}
		out.Tools = append(out.Tools, apiTool{Name: t.Name, Description: t.Description, InputSchema: schema})
		if t.Cache {
			lastTool = i
		}
	}
	if lastTool >= 0 {
		bps = append(bps, breakpoint{where: toolBP, i: lastTool})
	}

	// The API has no system role inside the conversation: system
	// messages join the system prompt.
	var sysCache []bool
	if req.System != "" {
		out.System = append(out.System, block{Type: "text", Text: req.System})
		sysCache = append(sysCache, false)
	}
	for _, m := range req.Messages {
		if m.Role == provider.RoleSystem && m.Content != "" {
			out.System = append(out.System, block{Type: "text", Text: m.Content})
			sysCache = append(sysCache, m.Cache)
		}
	}
	if req.SystemCache && len(sysCache) > 0 {
		sysCache[len(sysCache)-1] = true
	}
	for i, c := range sysCache {
		if c {
			bps = append(bps, breakpoint{where: systemBP, i: i})
		}
	}

	for n, m := range req.Messages {
		var role string
		var blocks []block
		switch m.Role {
		case provider.RoleSystem:
			continue
		case provider.RoleUser:
			role = "user"
			if m.Content != "" {
				blocks = append(blocks, block{Type: "text", Text: m.Content})
			}
			blocks = appendBlocks(blocks, m.Blocks)
		case provider.RoleAssistant:
			role = "assistant"
			if m.Content != "" {
				blocks = append(blocks, block{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Args)})
			}
		case provider.RoleTool:
			role = "user"
			r := block{Type: "tool_result", ToolUseID: m.ToolCallID, IsError: m.IsError}
			if m.Content != "" {
				r.Content = append(r.Content, block{Type: "text", Text: m.Content})
			}
			r.Content = appendBlocks(r.Content, m.Blocks)
			blocks = []block{r}
		default:
			return apiRequest{}, fmt.Errorf("message %d: unknown role %q", n, m.Role)
		}
		if len(blocks) == 0 {
			continue // the API rejects empty turns and empty text blocks
		}
		// Consecutive messages of one role are one turn: the API requires
		// user and assistant to alternate.
		if k := len(out.Messages); k > 0 && out.Messages[k-1].Role == role {
			out.Messages[k-1].Content = append(out.Messages[k-1].Content, blocks...)
		} else {
			out.Messages = append(out.Messages, apiMessage{Role: role, Content: blocks})
		}
		if m.Cache {
			k := len(out.Messages) - 1
			bps = append(bps, breakpoint{where: messageBP, i: k, j: len(out.Messages[k].Content) - 1})
		}
	}

	// Later breakpoints cache longer prefixes: keep the last ones.
	if len(bps) > maxBreakpoints {
		bps = bps[len(bps)-maxBreakpoints:]
	}
	for _, bp := range bps {
		cc := &cacheControl{Type: "ephemeral"}
		switch bp.where {
		case toolBP:
			out.Tools[bp.i].CacheControl = cc
		case systemBP:
			out.System[bp.i].CacheControl = cc
		case messageBP:
			out.Messages[bp.i].Content[bp.j].CacheControl = cc
		}
	}
	return out, nil
}

// encodeRequest returns the JSON body for req.
func encodeRequest(model string, maxTokens int, req provider.Request, stream bool) ([]byte, error) {
	r, err := buildRequest(model, maxTokens, req, stream)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	return b, nil
}

// appendBlocks appends the image and text Blocks the API accepts; other
// kinds are left out. An image of a type the API does not take becomes a
// text block that says so (see package images).
func appendBlocks(dst []block, bs []core.Block) []block {
	for _, b := range bs {
		switch b.Type {
		case "image":
			if len(b.Data) == 0 {
				continue
			}
			mt, note := images.Check(b, name, images.Accepted)
			if note != "" {
				dst = append(dst, block{Type: "text", Text: note})
				continue
			}
			dst = append(dst, block{Type: "image", Source: &imageSource{
				Type: "base64", MediaType: mt, Data: base64.StdEncoding.EncodeToString(b.Data),
			}})
		case "text":
			if b.Text != "" {
				dst = append(dst, block{Type: "text", Text: b.Text})
			}
		}
	}
	return dst
}

// toolInput returns args compacted when they are a JSON object, else {}:
// the API accepts only objects as tool_use input.
func toolInput(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	var buf bytes.Buffer
	if len(t) > 0 && t[0] == '{' && json.Compact(&buf, t) == nil {
		return buf.Bytes()
	}
	return json.RawMessage(`{}`)
}
