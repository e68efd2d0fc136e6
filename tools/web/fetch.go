package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Fetch limits. A request's MaxBytes and Timeout above the maximum are
// lowered to it.
const (
	DefaultMaxBytes = 5 << 20 // 5 MiB
	MaxMaxBytes     = 50 << 20
	DefaultTimeout  = 30 * time.Second
	MaxTimeout      = 5 * time.Minute
	// MaxRedirects is how many redirects one fetch follows.
	MaxRedirects = 10
)

// DefaultUserAgent is the User-Agent header HTTPFetcher sends by default.
const DefaultUserAgent = "agentsh-fetch/1.0 (+https://github.com/agentsh/agentsh)"

// HTTPFetcher is the Fetcher of agentsh's fetch tool: an HTTP(S) GET under a
// Policy, checked before the request, at every dial and at every redirect.
//
// A response is returned whatever its status: a 404 or a 500 is a
// FetchResponse with that Status, not an error, so that the caller (the
// fetch tool) decides what to make of it and can show the body of an error
// page. Errors are for what prevented a response: a refused destination, a
// bad URL, a network failure, too many redirects, a timeout (which covers
// the whole exchange, including a slowly sent body) or a cancelled context.
// A body longer than the request's MaxBytes is cut to exactly MaxBytes and
// the response is marked Truncated.
//
// Set the exported fields before the first Fetch and do not change them
// afterwards; Fetch is then safe for concurrent use.
type HTTPFetcher struct {
	// MaxBytes is the body bound of a request that sets none: 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Timeout is the time bound of a request that sets none: 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent with every request: "" means DefaultUserAgent.
	UserAgent string

	policy    Policy
	compiled  *compiled
	policyErr error
	client    *http.Client
}

var _ Fetcher = (*HTTPFetcher)(nil)

// NewHTTPFetcher returns a fetcher that reaches only what p allows. A
// malformed p makes every Fetch fail with an error naming the bad entry.
func NewHTTPFetcher(p Policy) *HTTPFetcher {
	return newHTTPFetcher(p, nil)
}

func newHTTPFetcher(p Policy, lookup Resolver) *HTTPFetcher {
	p = p.clone()
	f := &HTTPFetcher{policy: p}
	f.compiled, f.policyErr = p.compile()
	if f.policyErr != nil {
		return f
	}
	d := newPolicyDialer(f.compiled, lookup)
	tr := &http.Transport{
		Proxy:                 nil, // never through a proxy: the checked address is the one reached
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	f.client = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return &redirectError{url: req.URL.String(), err: fmt.Errorf("stopped after %d redirects", MaxRedirects)}
			}
			if _, err := f.compiled.checkURL(req.URL.String()); err != nil {
				return &redirectError{url: req.URL.String(), err: err}
			}
			return nil
		},
	}
	return f
}

// Policy returns (a copy of) the fetcher's policy.
func (f *HTTPFetcher) Policy() Policy { return f.policy.clone() }

// redirectError is a refused redirect.
type redirectError struct {
	url string
	err error
}

func (e *redirectError) Error() string { return "redirect to " + e.url + ": " + e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// limits returns the request's effective bounds.
func (f *HTTPFetcher) limits(req FetchRequest) (int64, time.Duration, error) {
	maxBytes, timeout := req.MaxBytes, req.Timeout
	if maxBytes < 0 {
		return 0, 0, fmt.Errorf("MaxBytes is %d, want 0 (the default) or more", maxBytes)
	}
	if timeout < 0 {
		return 0, 0, fmt.Errorf("Timeout is %v, want 0 (the default) or more", timeout)
	}
	if maxBytes == 0 {
		maxBytes = f.MaxBytes
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if timeout == 0 {
		timeout = f.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return min(maxBytes, MaxMaxBytes), min(timeout, MaxTimeout), nil
}

// Fetch performs one GET; see HTTPFetcher for what is an error.
func (f *HTTPFetcher) Fetch(ctx context.Context, req FetchRequest) (*FetchResponse, error) {
	if req.URL == "" {
		return nil, errors.New("fetch: empty URL")
	}
	fail := func(err error) (*FetchResponse, error) {
		return nil, fmt.Errorf("fetch %s: %w", req.URL, err)
	}
	if f.policyErr != nil {
		return fail(f.policyErr)
	}
	maxBytes, timeout, err := f.limits(req)
	if err != nil {
		return fail(err)
	}
	u, err := f.compiled.checkURL(req.URL)
	if err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}

	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(tctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(err)
	}
	ua := f.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	hreq.Header.Set("User-Agent", ua)
	hreq.Header.Set("Accept", "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5")

	resp, err := f.client.Do(hreq)
	if err != nil {
		return fail(f.explain(tctx, ctx, timeout, hreq.URL.String(), "waiting for the response", err))
	}
	defer resp.Body.Close()

	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		what := fmt.Sprintf("reading the body (%d bytes read)", len(body))
		return fail(f.explain(tctx, ctx, timeout, hreq.URL.String(), what, err))
	}
	out := &FetchResponse{
		URL:         resp.Request.URL.String(),
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        body,
	}
	if int64(len(body)) > maxBytes {
		out.Body, out.Truncated = body[:maxBytes:maxBytes], true
	}
	if out.ContentType == "" && len(out.Body) > 0 {
		out.ContentType = http.DetectContentType(out.Body)
	}
	return out, nil
}

var errTimeout = errors.New("fetch timeout")

// explain turns a client error into a clear one: a timeout or a
// cancellation says so (and wraps context.DeadlineExceeded or the parent's
// error), a refused redirect names its target, and the url.Error wrapper
// (which repeats the URL) is removed.
func (f *HTTPFetcher) explain(tctx, parent context.Context, timeout time.Duration, first, doing string, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("%s: %w", doing, perr)
	}
	if errors.Is(context.Cause(tctx), errTimeout) {
		return fmt.Errorf("timed out after %v %s: %w", timeout, doing, context.DeadlineExceeded)
	}
	var re *redirectError
	if errors.As(err, &re) {
		return re
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.URL != first {
			// The failure was at a redirect's target.
			return &redirectError{url: ue.URL, err: ue.Err}
		}
		return ue.Err
	}
	return err
}
