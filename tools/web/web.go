// Package web reaches the web for agentsh's fetch and browser tools: an
// HTTP Fetcher under a destination policy (re-checked on every redirect and
// at every dial), HTML to Markdown conversion, and the policy proxy a
// browser sends its traffic through. The headless Chromium Browser is in
// package tools/browser, so that a program without the browser tool does
// not link its driver (chromedp).
//
//   - Policy (policy.go) says which destinations may be reached. Its zero
//     value allows public http and https hosts only: no loopback, private,
//     link-local or cloud metadata address, however it is spelled or
//     resolved.
//   - HTTPFetcher (fetch.go) is the Fetcher: bounded GETs under a Policy.
//   - Convert, ToMarkdown and ToText (convert.go) turn a fetched body into
//     text in a Format: "markdown" (the default), "text" or "html".
//   - PolicyProxy (proxy.go) is a local HTTP proxy that forwards only what
//     a Policy allows; tools/browser's ChromeBrowser sends all of
//     Chromium's traffic through one.
//
// Errors are lowercase and start with the operation and the URL, e.g.
// "fetch http://169.254.169.254/: address 169.254.169.254 is link-local
// (cloud metadata); denied by policy". A refusal by the policy matches
// ErrDenied (errors.Is) and is a *DeniedError (errors.As); a timeout matches
// context.DeadlineExceeded and a cancellation context.Canceled.
package web

import (
	"context"
	"time"
)

// FetchRequest is one HTTP(S) GET.
type FetchRequest struct {
	URL string
	// MaxBytes bounds the body; 0 means the fetcher's default. HTTPFetcher
	// lowers a larger value to MaxMaxBytes and refuses a negative one.
	MaxBytes int64
	// Timeout bounds the whole exchange, redirects and body included; 0
	// means the fetcher's default. HTTPFetcher lowers a larger value to
	// MaxTimeout and refuses a negative one.
	Timeout time.Duration
}

// FetchResponse is a fetched document.
type FetchResponse struct {
	URL string // after redirects
	// Status is the HTTP status code. Any status is a response, not an
	// error: the caller decides what a 404 means.
	Status int
	// ContentType is the Content-Type header; when the server sent none,
	// it is sniffed from the body (http.DetectContentType).
	ContentType string
	Body        []byte
	// Truncated is set when the body was longer than MaxBytes; Body then
	// holds exactly MaxBytes bytes.
	Truncated bool
}

// Fetcher performs HTTP(S) GETs under a destination policy, checking every
// redirect. Implementations must be safe for concurrent use.
type Fetcher interface {
	Fetch(ctx context.Context, req FetchRequest) (*FetchResponse, error)
}

// Browser loads pages in a headless browser. Implementations must be safe
// for concurrent use.
type Browser interface {
	// Screenshot returns a PNG of the page.
	Screenshot(ctx context.Context, url string) ([]byte, error)
	// Text returns the page's visible text.
	Text(ctx context.Context, url string) (string, error)
}
