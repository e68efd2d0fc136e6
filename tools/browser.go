package tools

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/web"
)

func init() { toolBuilders["browser"] = (*Extension).browserTool }

type browserArgs struct {
	URL    string `json:"url"`
	Action string `json:"action"`
}

func (x *Extension) browserTool() core.Tool {
	return tool("browser",
		"Opens a URL in headless Chromium: action screenshot returns a PNG of the viewport as an image, action text returns the page's visible text. The same destination policy as fetch applies to everything the page loads.",
		`{"type":"object","properties":{`+
			`"url":{"type":"string","description":"http or https URL"},`+
			`"action":{"type":"string","enum":["screenshot","text"]}},`+
			`"required":["url","action"],"additionalProperties":false}`,
		safe, true, x.browse)
}

// browserOps returns the Browser, starting the default one (headless
// Chromium under FetchPolicy) on first use; without Chromium it is an error
// that says what to install.
func (x *Extension) browserOps() (Browser, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.browser == nil {
		cb, err := web.NewChromeBrowser(web.WithPolicy(x.cfg.FetchPolicy))
		if err != nil {
			return nil, err
		}
		x.browser = cb
	}
	return x.browser, nil
}

func (x *Extension) browse(ctx context.Context, a browserArgs) (any, error) {
	b, err := x.browserOps()
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	switch a.Action {
	case "text":
		return b.Text(ctx, a.URL)
	case "screenshot":
		png, err := b.Screenshot(ctx, a.URL)
		if err != nil {
			return nil, err
		}
		return imageOutput{core.BlockOutput{
			Text:   fmt.Sprintf("[screenshot of %s: image/png, %d bytes]", a.URL, len(png)),
			Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: png}},
		}, map[string]any{"url": a.URL, "mime_type": "image/png", "size": int64(len(png))}}, nil
	}
	return nil, fmt.Errorf("browser: action %q is not screenshot or text", a.Action)
}
