// Package browser is the browser tool's headless Chromium: ChromeBrowser,
// a web.Browser driven through chromedp, whose traffic all goes through a
// web.PolicyProxy.
//
// Importing the package registers Chromium as the browser tool's default
// Browser (tools.RegisterBrowser), so that a program gets the tool with
//
//	import _ "github.com/agentsh/agentsh/tools/browser"
//
// and a program without it — one that uses only the file, shell, search,
// fetch and code tools — links neither chromedp nor cdproto, and lists no
// browser tool (unless its tools.ExtensionConfig sets a Browser).
//
// Errors are lowercase and start with the operation and the URL, e.g.
// "text http://169.254.169.254/: address 169.254.169.254 is link-local
// (cloud metadata); denied by policy". A refusal by the policy matches
// web.ErrDenied (errors.Is); a timeout matches context.DeadlineExceeded
// and a cancellation context.Canceled.
package browser

import (
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/web"
)

func init() {
	tools.RegisterBrowser("chromium", func(p web.Policy) (tools.Browser, error) {
		b, err := NewChromeBrowser(WithPolicy(p))
		if err != nil {
			return nil, err // not a Browser holding a nil *ChromeBrowser
		}
		return b, nil
	})
}
