package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/images"
)

// The request body of POST /chat/completions.
type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	Tools         []chatTool     `json:"tools,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a []contentPart, or nil (an assistant message
	// that only calls tools).
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest builds the JSON body for req.
func (p *Provider) encodeRequest(req provider.Request, stream bool) ([]byte, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	msgs, err := p.encodeMessages(req)
	if err != nil {
		return nil, err
	}
	body := chatRequest{
		Model:     model,
		Messages:  msgs,
		MaxTokens: max(req.MaxTokens, 0),
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(strings.TrimSpace(string(params))) == 0 || string(params) == "null" {
			params = emptySchema
		} else if !json.Valid(params) {
			return nil, p.requestError("tool %q: parameters are not valid JSON", t.Name)
		}
		body.Tools = append(body.Tools, chatTool{
			Type:     "function",
			Function: functionDef{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	if stream {
		body.Stream = true
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, p.requestError("encoding the request: %v", err)
	}
	return data, nil
}

func (p *Provider) requestError(format string, args ...any) error {
	return &provider.Error{Kind: provider.ErrBadRequest, Provider: p.kind, Message: fmt.Sprintf(format, args...)}
}

// encodeMessages turns the conversation into Chat Completions messages.
// Images of tool results are gathered while the tool messages of a turn
// go out, and follow them in one user message.
func (p *Provider) encodeMessages(req provider.Request) ([]chatMessage, error) {
	var out []chatMessage
	if req.System != "" {
		out = append(out, chatMessage{Role: "system", Content: req.System})
	}
	toolNames := map[string]string{} // call ID → tool name, for the image captions
	var images []contentPart         // of the current run of tool messages
	flush := func() {
		if len(images) > 0 {
			out = append(out, chatMessage{Role: "user", Content: images})
			images = nil
		}
	}
	for i, m := range req.Messages {
		if m.Role != provider.RoleTool {
			flush()
		}
		switch m.Role {
		case provider.RoleSystem:
			out = append(out, chatMessage{Role: "system", Content: m.Content})
		case provider.RoleUser:
			msg := chatMessage{Role: "user", Content: m.Content}
			if parts := p.imageParts(m.Blocks); len(parts) > 0 {
				if m.Content != "" {
					parts = append([]contentPart{{Type: "text", Text: m.Content}}, parts...)
				}
				msg.Content = parts
			}
			out = append(out, msg)
		case provider.RoleAssistant:
			msg := chatMessage{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				msg.Content = m.Content
			}
			for _, c := range m.ToolCalls {
				args := strings.TrimSpace(string(c.Args))
				if args == "" || args == "null" {
					args = "{}"
				}
				msg.ToolCalls = append(msg.ToolCalls, chatToolCall{
					ID:       c.ID,
					Type:     "function",
					Function: chatFunction{Name: c.Name, Arguments: args},
				})
				toolNames[c.ID] = c.Name
			}
			out = append(out, msg)
		case provider.RoleTool:
			content := m.Content
			if m.IsError && content == "" {
				content = "the tool call failed"
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: m.ToolCallID, Content: content})
			if parts := p.imageParts(m.Blocks); len(parts) > 0 {
				name := m.Name
				if name == "" {
					name = toolNames[m.ToolCallID]
				}
				caption := fmt.Sprintf("images from tool %s (call %s)", name, m.ToolCallID)
				images = append(images, contentPart{Type: "text", Text: caption})
				images = append(images, parts...)
			}
		default:
			return nil, p.requestError("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()
	return out, nil
}

// imageParts returns the image blocks as image_url parts with data URLs.
// An image of a type the API does not take becomes a text part that says
// so (see package images).
func (p *Provider) imageParts(blocks []core.Block) []contentPart {
	var parts []contentPart
	for _, b := range blocks {
		if len(b.Data) == 0 || (b.Type != "image" && !strings.HasPrefix(b.MIMEType, "image/")) {
			continue
		}
		mime, note := images.Check(b, p.kind, images.Accepted)
		if note != "" {
			parts = append(parts, contentPart{Type: "text", Text: note})
			continue
		}
		url := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b.Data)
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
	}
	return parts
}
