package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

// maxToolName is core's limit on tool names.
const maxToolName = 64

// ToolName returns the name a server's remote tool registers under:
// mcp__SERVER__TOOL, with every character of the remote name outside
// [A-Za-z0-9_-] replaced by "_". A name longer than 64 characters is cut
// and ends in "_" and 8 hex digits of a hash of the remote name, so that
// long names sharing a beginning stay distinct.
func ToolName(server, remote string) string {
	var b strings.Builder
	b.WriteString("mcp__")
	b.WriteString(server)
	b.WriteString("__")
	for _, r := range remote {
		if r < 0x80 && (r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(remote))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:maxToolName-len(suffix)] + suffix
}

// upstream is one remote tool as it registers: its definition (what a
// pin records), the definition's digest and the core tool.
type upstream struct {
	def    *Definition
	digest string
	tool   core.Tool
}

// buildTools turns a server's remote tools into core tools, sorted by
// name. Two remote tools that would share a name are an error naming both.
func (s *server) buildTools(remote []*sdk.Tool) ([]upstream, error) {
	sorted := make([]*sdk.Tool, 0, len(remote))
	for _, t := range remote {
		if t == nil {
			continue
		}
		if t.Name == "" {
			return nil, fmt.Errorf("mcp server %s: the server lists a tool without a name", s.cfg.Name)
		}
		sorted = append(sorted, t)
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	readOnly := map[string]bool{}
	for _, n := range s.cfg.ReadOnly {
		readOnly[n] = true
	}
	owner := map[string]string{} // local name → remote name
	tools := make([]upstream, 0, len(sorted))
	for _, t := range sorted {
		name := ToolName(s.cfg.Name, t.Name)
		if prev, dup := owner[name]; dup {
			if prev == t.Name {
				return nil, fmt.Errorf("mcp server %s: the server lists tool %q twice", s.cfg.Name, t.Name)
			}
			return nil, fmt.Errorf("mcp server %s: tools %q and %q would both register as %q", s.cfg.Name, prev, t.Name, name)
		}
		owner[name] = t.Name
		def, err := definitionOf(s.cfg.Name, t)
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: tool %q: %v", s.cfg.Name, t.Name, err)
		}
		tool, err := s.tool(name, &def, readOnly[t.Name] || readOnly[name])
		if err != nil {
			return nil, err
		}
		tools = append(tools, upstream{def: &def, digest: def.digest(), tool: tool})
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].tool.Name < tools[j].tool.Name })
	return tools, nil
}

// unknownReadOnly returns the names of ServerConfig.ReadOnly that name
// none of the tools, sorted.
func (s *server) unknownReadOnly(tools []upstream) []string {
	known := map[string]bool{}
	for _, u := range tools {
		known[u.def.Tool] = true
		known[u.tool.Name] = true
	}
	var out []string
	for _, n := range s.cfg.ReadOnly {
		if !known[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// tool builds the core.Tool for a remote tool, registered as name. It is
// read-only (and so concurrency-safe and idempotent) when the person
// declared it so in ServerConfig.ReadOnly; the server's annotations are
// hints and set none of this.
func (s *server) tool(name string, d *Definition, readOnly bool) (core.Tool, error) {
	params := d.InputSchema
	if _, err := core.CompileSchema(params); err != nil {
		return core.Tool{}, fmt.Errorf("mcp server %s: tool %q: %v", s.cfg.Name, d.Tool, err)
	}
	t := core.Tool{
		Name:        name,
		Description: d.description(),
		Parameters:  params,
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			return s.call(ctx, d.Tool, args)
		},
	}
	if readOnly {
		t.ReadOnly, t.ConcurrencySafe, t.Idempotent = true, core.Bool(true), true
	}
	return t, nil
}

// output maps a tool result into what a core.ToolFunc returns: the text
// parts joined by newlines, as a string, or a core.BlockOutput when the
// result has images, audio or binary resources. Structured content stands
// in for the text when there is none. A result marked as an error becomes
// an error whose message is its text.
func output(res *sdk.CallToolResult) (any, error) {
	var texts []string
	var blocks []core.Block
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			blocks = append(blocks, core.Block{Type: "image", MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.AudioContent:
			blocks = append(blocks, core.Block{Type: "audio", MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob == nil:
				texts = append(texts, r.Text)
			case textual(r.MIMEType) && utf8.Valid(r.Blob):
				texts = append(texts, string(r.Blob))
			case strings.HasPrefix(r.MIMEType, "image/"):
				blocks = append(blocks, core.Block{Type: "image", MIMEType: r.MIMEType, Data: r.Blob})
			case strings.HasPrefix(r.MIMEType, "audio/"):
				blocks = append(blocks, core.Block{Type: "audio", MIMEType: r.MIMEType, Data: r.Blob})
			default:
				blocks = append(blocks, core.Block{Type: "resource", MIMEType: r.MIMEType, Data: r.Blob})
				texts = append(texts, fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob)))
			}
		case *sdk.ResourceLink:
			line := "[resource link " + c.URI
			if c.Name != "" {
				line += " (" + c.Name + ")"
			}
			if c.Description != "" {
				line += ": " + c.Description
			}
			texts = append(texts, line+"]")
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return nil, errors.New(text)
	}
	if len(texts) == 0 && res.StructuredContent != nil {
		b, err := core.MarshalJSON(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content: %v", err)
		}
		text = string(b)
	}
	if len(blocks) > 0 {
		return core.BlockOutput{Text: text, Blocks: blocks}, nil
	}
	return text, nil
}

// textual reports whether a MIME type is text a model can read.
func textual(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(mime), ";")
	mime = strings.TrimSpace(mime)
	switch {
	case strings.HasPrefix(mime, "text/"),
		strings.HasSuffix(mime, "+json"), strings.HasSuffix(mime, "+xml"),
		mime == "application/json", mime == "application/xml",
		mime == "application/javascript", mime == "application/yaml",
		mime == "application/x-yaml", mime == "application/toml":
		return true
	}
	return false
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
