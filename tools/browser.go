package tools

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/web"
)

func init() {
	toolBuilders["browser"] = (*Extension).browserTool
	toolAvailable["browser"] = (*Extension).hasBrowser
}

// BrowserOpener returns the Browser the browser tool uses when
// ExtensionConfig.Browser is nil, for the extension's FetchPolicy. It is
// called on the tool's first call, not at Init; its error (Chromium is not
// installed) is that call's, and should say what to install. A Browser
// that has a Close method is closed with the extension.
type BrowserOpener func(policy web.Policy) (Browser, error)

// registeredBrowser is the default Browser registered, or nil.
type registeredBrowser struct {
	name string
	open BrowserOpener
}

var defaultBrowser atomic.Pointer[registeredBrowser]

// RegisterBrowser makes open the browser tool's default Browser, named
// name in messages. Package tools/browser registers headless Chromium
// ("chromium") when it is imported; without a registered Browser, or one
// set in ExtensionConfig.Browser, the extension has no browser tool, and
// a program that only uses the other tools does not link a browser's
// driver. It panics if name is empty or a default is registered already:
// one program has one. Register from init; it is safe to call
// concurrently with NewExtension and the tools' calls.
func RegisterBrowser(name string, open BrowserOpener) {
	if name == "" || open == nil {
		panic("tools: RegisterBrowser needs a name and an opener")
	}
	if !defaultBrowser.CompareAndSwap(nil, &registeredBrowser{name, open}) {
		panic(fmt.Sprintf("tools: RegisterBrowser(%q): the default browser is %q already", name, defaultBrowser.Load().name))
	}
}

// hasBrowser reports whether x has a browser tool: a Browser set in its
// configuration or a registered default.
func (x *Extension) hasBrowser() bool {
	return x.cfg.Browser != nil || defaultBrowser.Load() != nil
}

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

// browserOps returns the Browser, opening the registered default (headless
// Chromium, from tools/browser) under FetchPolicy on first use; without
// Chromium it is an error that says what to install.
func (x *Extension) browserOps() (Browser, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.browser == nil {
		d := defaultBrowser.Load()
		if d == nil {
			return nil, fmt.Errorf("no browser is set up")
		}
		b, err := d.open(x.cfg.FetchPolicy)
		if err != nil {
			return nil, err
		}
		x.browser = b
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
