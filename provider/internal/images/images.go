// Package images decides how the HTTP adapters send an image block: as an
// image of a type the provider accepts, or as a text note saying why it
// was left out. An image of any other type (an SVG from an MCP server, a
// BMP, a mislabelled file) would make the provider refuse the whole
// request, and with it the run.
package images

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// Accepted are the image types both the OpenAI and the Anthropic APIs
// take: JPEG, PNG, GIF and WebP.
var Accepted = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// Check returns the type to send an image block's data as, or, when the
// data is not an image of an accepted type, a note for the model instead.
// The type is sniffed from the data (as net/http does), not taken from
// the block's MIMEType, so a mislabelled PNG is still sent, as image/png,
// and an SVG labelled image/png is not. provider names the provider in the
// note.
func Check(b core.Block, provider string, accepted []string) (mime, note string) {
	sniffed, _, _ := strings.Cut(http.DetectContentType(b.Data), ";")
	for _, a := range accepted {
		if sniffed == a {
			return sniffed, ""
		}
	}
	declared := b.MIMEType
	if declared == "" {
		declared = sniffed
	}
	if len(declared) > 64 { // a type comes from a tool: keep the note short
		declared = declared[:64] + "..."
	}
	return "", fmt.Sprintf("[an image of type %q (%d bytes) was left out: %s accepts only %s]",
		declared, len(b.Data), provider, strings.Join(accepted, ", "))
}
