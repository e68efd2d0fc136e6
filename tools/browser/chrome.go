package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/agentsh/agentsh/tools/web"
)

// Browser defaults.
const (
	DefaultViewportWidth  = 1280
	DefaultViewportHeight = 800
	// DefaultBrowserTimeout bounds one Screenshot or Text call whose
	// context has no earlier deadline.
	DefaultBrowserTimeout = 30 * time.Second
)

// ErrNoChrome is matched (with errors.Is) by the error of FindChrome and
// NewChromeBrowser when no Chromium or Chrome binary is found.
var ErrNoChrome = errors.New("no Chromium or Chrome browser found")

// chromeNames are looked up in PATH, then chromePaths are tried, in order.
var (
	chromeNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell", "headless_shell"}
	chromePaths = []string{"/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium", "/opt/google/chrome/chrome"}
)

// chromeInstallHint says what to do when no browser is found.
const chromeInstallHint = "install Chromium (Debian/Ubuntu: apt-get install chromium; Fedora: dnf install chromium; macOS: brew install --cask chromium) or set CHROME_PATH to the browser's executable"

// FindChrome returns the path of the browser that NewChromeBrowser uses by
// default: $CHROME_PATH if set (it must then be executable: there is no
// fallback), else the first of chromium, chromium-browser, google-chrome,
// google-chrome-stable, chrome, headless-shell, headless_shell found in
// PATH, else the first executable of /usr/bin/chromium,
// /usr/lib/chromium/chromium, /snap/bin/chromium, /opt/google/chrome/chrome.
// When what is found is Debian's launcher script (/usr/bin/chromium), the
// binary it runs (/usr/lib/chromium/chromium) is returned instead: the
// script would give Chromium Google API keys and extra flags. The error
// wraps ErrNoChrome and says what to install.
func FindChrome() (string, error) {
	return findChrome(os.Getenv, exec.LookPath)
}

func findChrome(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv("CHROME_PATH"); p != "" {
		found, err := lookPath(p)
		if err != nil {
			return "", fmt.Errorf("CHROME_PATH=%s is not an executable (%v): %w; %s", p, err, ErrNoChrome, chromeInstallHint)
		}
		return found, nil
	}
	for _, name := range append(chromeNames[:len(chromeNames):len(chromeNames)], chromePaths...) {
		if found, err := lookPath(name); err == nil {
			return unwrapDebian(found, lookPath), nil
		}
	}
	return "", fmt.Errorf("%w (looked for $CHROME_PATH, %s in PATH, and %s); %s",
		ErrNoChrome, strings.Join(chromeNames, ", "), strings.Join(chromePaths, ", "), chromeInstallHint)
}

// debianChromium is the binary that Debian's /usr/bin/chromium script runs.
var debianChromium = "/usr/lib/chromium/chromium"

// unwrapDebian returns the Chromium binary that Debian's launcher script at
// path runs, or path. The script sources /etc/chromium.d, which exports
// Google API keys (Chromium then signs in to Google services and calls
// them in the background) and adds flags; the binary needs none of it.
func unwrapDebian(path string, lookPath func(string) (string, error)) string {
	f, err := os.Open(path)
	if err != nil {
		return path
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) || !bytes.Contains(head, []byte("LIBDIR=/usr/lib/$APPNAME")) {
		return path
	}
	if real, err := lookPath(debianChromium); err == nil {
		return real
	}
	return path
}

// ChromeOption configures NewChromeBrowser.
type ChromeOption func(*chromeConfig)

type chromeConfig struct {
	path          string
	policy        web.Policy
	width, height int
	timeout       time.Duration

	// for tests
	getenv   func(string) string
	lookPath func(string) (string, error)
	lookup   web.Resolver
}

// WithChromePath sets the browser executable (a path, or a name looked up in
// PATH) instead of FindChrome's choice.
func WithChromePath(path string) ChromeOption {
	return func(c *chromeConfig) { c.path = path }
}

// WithPolicy sets the destination policy; the default is the zero Policy.
func WithPolicy(p web.Policy) ChromeOption {
	return func(c *chromeConfig) { c.policy = clonePolicy(p) }
}

// clonePolicy copies p's lists, which the caller may change later.
func clonePolicy(p web.Policy) web.Policy {
	p.AllowHosts = slices.Clone(p.AllowHosts)
	p.DenyHosts = slices.Clone(p.DenyHosts)
	return p
}

// WithViewport sets the viewport in CSS pixels (at a device scale factor of
// 1, so also the screenshot's size in pixels); the default is 1280x800.
// Values that are not positive keep the default.
func WithViewport(width, height int) ChromeOption {
	return func(c *chromeConfig) { c.width, c.height = width, height }
}

// WithTimeout bounds each call whose context has no earlier deadline; the
// default is DefaultBrowserTimeout. Values that are not positive keep the
// default.
func WithTimeout(d time.Duration) ChromeOption {
	return func(c *chromeConfig) { c.timeout = d }
}

// ChromeBrowser is a Browser that drives headless Chromium through chromedp.
//
// One browser process is started on the first call and kept for the next
// ones (a call costs a tab, not a browser start); Close stops it. Each call
// runs in a fresh browser context (like a new incognito window: no cookies,
// cache or storage shared with other calls), in a viewport of a fixed size,
// and is bounded by its context and the configured timeout. A browser that
// crashed is started again by the next call. Calls are safe to make
// concurrently; each gets its own tab.
//
// The browser is started headless, without sandbox (agentsh often runs as
// root, where Chromium's sandbox cannot start), without GPU, QUIC, first-run
// screens, background networking, component updates or sync, with a fresh
// temporary profile directory that is removed when it stops, with only a
// few environment variables (PATH, HOME, TMPDIR, fontconfig's) and TZ=UTC,
// and with downloads denied and JavaScript dialogs dismissed.
//
// The Policy applies to everything the page loads, not only to the URL
// given: before navigating, the URL is checked by name; then all of the
// browser's HTTP and HTTPS traffic (documents, redirects, subresources,
// frames, workers, fetch/XHR, WebSockets) goes through a local proxy that
// checks each request's host and dials only allowed addresses, so a
// subresource on a denied host or a name resolving to a denied address is
// refused too. A refused main document fails the call with the policy's
// reason; a refused subresource is left out of the page silently. WebRTC
// is limited to proxied connections, so it cannot reach other addresses
// over UDP. Chromium's own background requests (it still makes a few, to
// Google services, in each browser context) go through the same proxy and
// are allowed or refused by the same policy. Non-network schemes (data:,
// blob:, about:) reach nothing and are not checked; file:, chrome: and any
// other scheme is refused as the URL of a call.
type ChromeBrowser struct {
	path          string
	policy        web.Policy
	policyErr     error // of a malformed policy, reported by every call
	width, height int
	timeout       time.Duration
	lookup        web.Resolver

	// sem guards the fields below and serializes starting the browser.
	sem    chan struct{}
	closed bool
	bctx   context.Context // the running browser's chromedp context
	stop   func()          // stops the running browser and its proxy
}

var _ web.Browser = (*ChromeBrowser)(nil)

// NewChromeBrowser returns a ChromeBrowser. It finds the browser executable
// now (see FindChrome), so that a missing browser is reported at once with
// what to install, but starts it only on the first call.
func NewChromeBrowser(opts ...ChromeOption) (*ChromeBrowser, error) {
	cfg := chromeConfig{getenv: os.Getenv, lookPath: exec.LookPath}
	for _, o := range opts {
		o(&cfg)
	}
	var path string
	var err error
	if cfg.path != "" {
		path, err = cfg.lookPath(cfg.path)
		if err != nil {
			return nil, fmt.Errorf("chromium: %s is not an executable (%v): %w; %s", cfg.path, err, ErrNoChrome, chromeInstallHint)
		}
	} else if path, err = findChrome(cfg.getenv, cfg.lookPath); err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	b := &ChromeBrowser{
		path:    path,
		policy:  cfg.policy,
		width:   cfg.width,
		height:  cfg.height,
		timeout: cfg.timeout,
		lookup:  cfg.lookup,
		sem:     make(chan struct{}, 1),
	}
	if b.width <= 0 || b.height <= 0 {
		b.width, b.height = DefaultViewportWidth, DefaultViewportHeight
	}
	if b.timeout <= 0 {
		b.timeout = DefaultBrowserTimeout
	}
	b.policyErr = b.policy.Validate()
	return b, nil
}

// Path returns the browser executable.
func (b *ChromeBrowser) Path() string { return b.path }

// Policy returns (a copy of) the destination policy.
func (b *ChromeBrowser) Policy() web.Policy { return clonePolicy(b.policy) }

// Viewport returns the viewport size, which is also the screenshot size.
func (b *ChromeBrowser) Viewport() (width, height int) { return b.width, b.height }

// Screenshot loads url and returns a PNG of the viewport (not the full
// page), of exactly the viewport's size.
func (b *ChromeBrowser) Screenshot(ctx context.Context, url string) ([]byte, error) {
	var png []byte
	err := b.run(ctx, "screenshot", url, "taking the screenshot", func(ctx context.Context) error {
		var err error
		png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
		return err
	})
	if err != nil {
		return nil, err
	}
	return png, nil
}

// textScript returns the page's rendered text; a document without a body
// (XML, SVG) gives its text content.
const textScript = `document.body ? document.body.innerText : (document.documentElement ? document.documentElement.textContent : "")`

// Text loads url and returns document.body.innerText, without leading and
// trailing white space: the page's text as rendered, after scripts ran,
// without hidden elements.
func (b *ChromeBrowser) Text(ctx context.Context, url string) (string, error) {
	var text string
	err := b.run(ctx, "text", url, "reading the text", func(ctx context.Context) error {
		var err error
		text, err = chromedp.Run(ctx, chromedp.Evaluate[string](textScript))
		text = strings.TrimSpace(text)
		return err
	})
	if err != nil {
		return "", err
	}
	return text, nil
}

// Close stops the browser process, if one runs, and removes its profile
// directory. Calls after Close fail. Close is safe to call more than once.
func (b *ChromeBrowser) Close() error {
	b.sem <- struct{}{}
	defer func() { <-b.sem }()
	b.closed = true
	if b.stop != nil {
		b.stop()
		b.stop, b.bctx = nil, nil
	}
	return nil
}

var errBrowserClosed = errors.New("browser is closed")

// browser returns the running browser's context, starting the browser if
// none runs (or the last one died).
func (b *ChromeBrowser) browser(ctx context.Context) (context.Context, error) {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-b.sem }()
	if b.closed {
		return nil, errBrowserClosed
	}
	if b.bctx != nil && b.bctx.Err() == nil {
		return b.bctx, nil
	}
	if b.stop != nil { // it died
		b.stop()
		b.stop, b.bctx = nil, nil
	}

	// The browser-wide proxy covers anything that would not run in a
	// call's own browser context.
	proxy, err := web.NewPolicyProxy(b.policy, b.lookup)
	if err != nil {
		return nil, err
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), b.allocatorOptions(proxy.URL())...)
	bctx, bcancel := chromedp.NewContext(actx)
	stop := func() {
		bcancel()
		acancel() // waits for the process to exit and its profile to be removed
		proxy.Close()
	}
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(bctx) }() // starts the browser, bound to bctx
	select {
	case err := <-errc:
		if err != nil {
			stop()
			return nil, fmt.Errorf("starting %s: %w", b.path, err)
		}
	case <-ctx.Done():
		stop()
		<-errc
		return nil, fmt.Errorf("starting %s: %w", b.path, ctx.Err())
	}
	b.bctx, b.stop = bctx, stop
	return bctx, nil
}

func (b *ChromeBrowser) allocatorOptions(proxyURL string) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption(nil), chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(b.path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// Fewer of Chromium's own background requests (they go through
		// the policy proxy all the same).
		chromedp.Flag("disable-field-trial-config", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,MediaRouter,DialMediaRouteProvider,OptimizationHints,AutofillServerCommunication,NetworkTimeServiceQuerying,PreconnectToSearch,AimEligibilityService"),
		chromedp.Flag("proxy-server", proxyURL),
		// Chrome sends loopback addresses directly unless told not to.
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.WindowSize(b.width, b.height),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("lang", "en-US"),
		chromedp.NoInheritEnv,
		chromedp.Env(browserEnv()...),
	)
	return opts
}

// browserEnv is the browser's whole environment: it does not need the
// agent's secrets.
func browserEnv() []string {
	env := []string{"TZ=UTC"}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "FONTCONFIG_FILE", "FONTCONFIG_PATH", "XDG_RUNTIME_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// run checks url, opens it in a new tab of a new browser context whose
// traffic goes through a policy proxy of its own, then calls act in that
// tab.
func (b *ChromeBrowser) run(ctx context.Context, op, url, doing string, act func(ctx context.Context) error) error {
	fail := func(err error) error { return fmt.Errorf("%s %s: %w", op, url, err) }
	if url == "" {
		return fmt.Errorf("%s: empty URL", op)
	}
	if b.policyErr != nil {
		return fail(b.policyErr)
	}
	if err := b.policy.CheckURL(url); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	deadline := time.Now().Add(b.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	limit := time.Until(deadline).Round(time.Millisecond)
	sctx, scancel := context.WithDeadline(ctx, deadline)
	bctx, err := b.browser(sctx)
	scancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return fail(fmt.Errorf("timed out after %v starting the browser: %w", limit, context.DeadlineExceeded))
		}
		return fail(err)
	}
	proxy, err := web.NewPolicyProxy(b.policy, b.lookup)
	if err != nil {
		return fail(err)
	}
	defer proxy.Close()

	tabCtx, tabCancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		p.ProxyServer = proxy.URL()
		p.ProxyBypassList = "<-loopback>"
	}))
	defer tabCancel() // closes the tab and disposes of its browser context
	rctx, rcancel := context.WithDeadline(tabCtx, deadline)
	defer rcancel()
	defer context.AfterFunc(ctx, rcancel)()

	explain := func(doing string, err error) error {
		switch {
		case ctx.Err() != nil:
			return fail(fmt.Errorf("%s: %w", doing, ctx.Err()))
		case errors.Is(rctx.Err(), context.DeadlineExceeded):
			return fail(fmt.Errorf("timed out after %v %s: %w", limit, doing, context.DeadlineExceeded))
		case bctx.Err() != nil:
			return fail(fmt.Errorf("%s: the browser stopped (closed or crashed): %w", doing, err))
		}
		return fail(fmt.Errorf("%s: %w", doing, err))
	}

	if err := chromedp.Do(rctx); err != nil { // opens the tab
		return explain("opening a tab", err)
	}
	c := chromedp.FromContext(rctx)
	if _, err := chromedp.CallBrowser(rctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior:         cdpbrowser.SetDownloadBehaviorBehaviorDeny,
		BrowserContextID: c.BrowserContextID,
	}); err != nil {
		return explain("denying downloads", err)
	}
	dialogs := chromedp.Events(rctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(rctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	if err := chromedp.Do(rctx, chromedp.EmulateViewport(int64(b.width), int64(b.height))); err != nil {
		return explain("setting the viewport", err)
	}

	// Follow the main frame's document requests (the URL, then each
	// redirect's target), to explain a refused one.
	// Chromium's main frame has the target's ID.
	var docMu sync.Mutex
	docURL := url
	mainFrame := string(c.Target.TargetID)
	if err := chromedp.Listen(rctx, func(ev any) {
		if ev, ok := ev.(*network.EventRequestWillBeSent); ok && ev.Type == network.ResourceTypeDocument &&
			ev.Request != nil && string(ev.FrameID) == mainFrame {
			docMu.Lock()
			docURL = ev.Request.URL
			docMu.Unlock()
		}
	}); err != nil {
		return explain("watching the page's requests", err)
	}
	refused := func() error {
		docMu.Lock()
		defer docMu.Unlock()
		return proxy.DenialFor(docURL)
	}

	resp, err := chromedp.Run(rctx, chromedp.NavigateResponse(url))
	if err != nil {
		if d := refused(); d != nil && rctx.Err() == nil {
			return fail(d)
		}
		var le *chromedp.LoadError
		if errors.As(err, &le) && le.ErrorText == "net::ERR_ABORTED" && rctx.Err() == nil {
			return fail(fmt.Errorf("loading the page: %w (the URL may be a download, and downloads are refused)", err))
		}
		return explain("loading the page", err)
	}
	if resp != nil && isDenied(resp.Headers) {
		if d := proxy.DenialFor(resp.URL); d != nil {
			return fail(d)
		}
		return fail(fmt.Errorf("%s: %w", resp.URL, web.ErrDenied))
	}
	if err := act(rctx); err != nil {
		return explain(doing, err)
	}
	return nil
}

func isDenied(h map[string]any) bool {
	for k, v := range h {
		if strings.EqualFold(k, web.DeniedHeader) {
			s, _ := v.(string)
			return s != ""
		}
	}
	return false
}
