package anthropic

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// TestImagesOfOtherTypesBecomeNotes: an SVG from a tool would make the API
// refuse the whole request; it travels as a text note instead, while a PNG
// (even one labelled image/jpeg) goes as an image of its real type.
func TestImagesOfOtherTypesBecomeNotes(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>`)
	pngData := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	req := provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "draw"},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "t1", Name: "mcp__draw__render", Args: []byte(`{}`)}}},
		{Role: provider.RoleTool, ToolCallID: "t1", Content: "rendered", Blocks: []core.Block{
			{Type: "image", MIMEType: "image/svg+xml", Data: svg},
			{Type: "image", MIMEType: "image/jpeg", Data: pngData},
		}},
	}}
	r, err := buildRequest("m", 100, req, false)
	if err != nil {
		t.Fatal(err)
	}
	content := r.Messages[2].Content[0].Content
	if len(content) != 3 {
		t.Fatalf("tool_result content %s, want text, note, image", jsonString(content))
	}
	note := content[1]
	if note.Type != "text" || !strings.Contains(note.Text, `"image/svg+xml"`) ||
		!strings.Contains(note.Text, "anthropic accepts only image/jpeg, image/png, image/gif, image/webp") {
		t.Errorf("second block %s, want a text note naming the type and the accepted ones", jsonString(note))
	}
	img := content[2]
	if img.Type != "image" || img.Source.MediaType != "image/png" || img.Source.Data != base64.StdEncoding.EncodeToString(pngData) {
		t.Errorf("third block %s, want the PNG as image/png", jsonString(img))
	}
	if body, _ := encodeRequest("m", 100, req, false); strings.Contains(string(body), base64.StdEncoding.EncodeToString(svg)) {
		t.Error("the SVG's data was sent")
	}
}
