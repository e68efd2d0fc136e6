package openai

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// TestImagesOfOtherTypesBecomeNotes: an SVG from a tool would make the API
// refuse the whole request; it travels as a text part instead, while a
// PNG (even one labelled image/jpeg) goes as an image of its real type.
func TestImagesOfOtherTypesBecomeNotes(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>`)
	pngData := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	p := newTestProvider(t, newServer(t, reply{body: "{}"}), wire.Retry{})
	req := provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "draw"},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "t1", Name: "mcp__draw__render", Args: []byte(`{}`)}}},
		{Role: provider.RoleTool, ToolCallID: "t1", Content: "rendered", Blocks: []core.Block{
			{Type: "image", MIMEType: "image/svg+xml", Data: svg},
			{Type: "image", MIMEType: "image/jpeg", Data: pngData},
		}},
	}}
	msgs, err := p.encodeMessages(req)
	if err != nil {
		t.Fatal(err)
	}
	parts, ok := msgs[len(msgs)-1].Content.([]contentPart)
	if !ok || len(parts) != 3 {
		t.Fatalf("last message %s, want a user message of caption, note, image", mustJSON(msgs[len(msgs)-1]))
	}
	if n := parts[1]; n.Type != "text" || !strings.Contains(n.Text, `"image/svg+xml"`) ||
		!strings.Contains(n.Text, "openai accepts only image/jpeg, image/png, image/gif, image/webp") {
		t.Errorf("second part %s, want a text note naming the type and the accepted ones", mustJSON(n))
	}
	if img := parts[2]; img.Type != "image_url" || img.ImageURL.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pngData) {
		t.Errorf("third part %s, want the PNG as image/png", mustJSON(img))
	}
	if body, _ := p.encodeRequest(req, false); strings.Contains(string(body), base64.StdEncoding.EncodeToString(svg)) {
		t.Error("the SVG's data was sent")
	}
}
