package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/net/websocket"

	"github.com/agentsh/agentsh/tools/web"
)

func noChrome(string) (string, error) { return "", exec.ErrNotFound }

func TestFindChromeMissing(t *testing.T) {
	_, err := findChrome(func(string) string { return "" }, noChrome)
	if !errors.Is(err, ErrNoChrome) || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), "CHROME_PATH") {
		t.Errorf("got %v, want ErrNoChrome saying to apt-get install chromium or set CHROME_PATH", err)
	}

	_, err = NewChromeBrowser(func(c *chromeConfig) {
		c.getenv = func(string) string { return "" }
		c.lookPath = noChrome
	})
	if !errors.Is(err, ErrNoChrome) || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("NewChromeBrowser: got %v, want ErrNoChrome saying what to install", err)
	}

	// An empty PATH finds nothing either (unless the fixed paths exist).
	t.Setenv("PATH", "")
	t.Setenv("CHROME_PATH", "")
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		if _, err := NewChromeBrowser(); !errors.Is(err, ErrNoChrome) {
			t.Errorf("empty PATH: got %v, want ErrNoChrome", err)
		}
	}

	// CHROME_PATH, when set, must work: no silent fallback.
	t.Setenv("CHROME_PATH", "/nonexistent/chromium")
	_, err = FindChrome()
	if !errors.Is(err, ErrNoChrome) || !strings.Contains(err.Error(), "CHROME_PATH=/nonexistent/chromium") {
		t.Errorf("bad CHROME_PATH: got %v", err)
	}
	_, err = NewChromeBrowser(WithChromePath("/nonexistent/chrome"))
	if !errors.Is(err, ErrNoChrome) || !strings.Contains(err.Error(), "/nonexistent/chrome") {
		t.Errorf("bad WithChromePath: got %v", err)
	}
}

func TestFindChromeOrder(t *testing.T) {
	have := map[string]bool{"google-chrome": true, "/usr/bin/chromium": true}
	look := func(name string) (string, error) {
		if have[name] {
			return "/found/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	got, err := findChrome(func(string) string { return "" }, look)
	if err != nil || got != "/found/google-chrome" {
		t.Errorf("got %q, %v; want the first name found in PATH", got, err)
	}
	got, err = findChrome(func(k string) string { return map[string]string{"CHROME_PATH": "/usr/bin/chromium"}[k] }, look)
	if err != nil || got != "/found//usr/bin/chromium" {
		t.Errorf("CHROME_PATH: got %q, %v", got, err)
	}
}

func TestFindChromeDebianWrapper(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/chromium"
	if err := os.WriteFile(script, []byte("#!/bin/sh\nAPPNAME=chromium\nLIBDIR=/usr/lib/$APPNAME\nexec $LIBDIR/$APPNAME \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	look := func(name string) (string, error) {
		switch name {
		case "chromium":
			return script, nil
		case debianChromium:
			return "/real/chromium", nil
		}
		return "", exec.ErrNotFound
	}
	got, err := findChrome(func(string) string { return "" }, look)
	if err != nil || got != "/real/chromium" {
		t.Errorf("got %q, %v; want the binary behind the Debian script", got, err)
	}
	// Another script, or no binary behind it: kept as found.
	os.WriteFile(script, []byte("#!/bin/sh\nexec /opt/x/chrome \"$@\"\n"), 0o755)
	if got, _ := findChrome(func(string) string { return "" }, look); got != script {
		t.Errorf("other script: got %q, want %q", got, script)
	}
}

// testBrowser starts one browser for the tests that need Chromium, or skips.
func testBrowser(t *testing.T, opts ...ChromeOption) *ChromeBrowser {
	t.Helper()
	path, err := FindChrome()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	b, err := NewChromeBrowser(append([]ChromeOption{WithChromePath(path)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestChromeBrowser(t *testing.T) {
	// Server "other" is on 127.0.0.2 when that can be bound (Linux routes
	// all of 127/8 to the loopback interface), to check that loopback
	// traffic goes through the policy proxy too.
	var otherHits atomic.Int32
	other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
	}))
	otherHost := "127.0.0.2"
	if ln, err := net.Listen("tcp", "127.0.0.2:0"); err == nil {
		other.Listener.Close()
		other.Listener = ln
	} else {
		otherHost = "127.0.0.1"
	}
	other.Start()
	defer other.Close()
	otherPort := port(t, other)

	var okHits, wsBadHits atomic.Int32
	hang := make(chan struct{})
	wsGood := make(chan struct{})
	var wsGoodOnce sync.Once
	var site *httptest.Server
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>T</title><style>body{margin:0;background:#fff}</style></head>
<body><h1>Hello, browser</h1><p id="p">static</p><p style="display:none">hidden text</p>
<img src="/ok.svg"><img src="http://localhost:%[1]s/denied-name.svg"><img src="http://%[2]s:%[1]s/denied-addr.svg">
<img src="http://meta.rebind.test:%[1]s/rebind.svg"><img src="http://169.254.169.254/latest/meta-data/">
<script>document.getElementById("p").textContent = "set by script"; alert("dialogs are dismissed");</script>
</body></html>`, otherPort, otherHost)
		case "/ok.svg":
			okHits.Add(1)
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
		case "/to-denied":
			http.Redirect(w, r, "http://localhost:"+otherPort+"/", http.StatusFound)
		case "/to-denied-https":
			http.Redirect(w, r, "https://LOCALHOST:"+otherPort+"/x", http.StatusFound)
		case "/to-meta":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/hang":
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		case "/download":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
			w.Write(make([]byte, 100))
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "just text")
		case "/ws-page":
			// The denied WebSocket first; the allowed one once it failed;
			// the load event waits for the allowed one (see /ws-wait.svg).
			fmt.Fprintf(w, `<html><body><p>ws</p><img src="/ws-wait.svg"><script>
const bad = new WebSocket("ws://localhost:%s/ws");
bad.onclose = () => { new WebSocket("ws://" + location.host + "/ws"); };
</script></body></html>`, port(t, site))
		case "/ws-wait.svg":
			select { // the WebSocket step's deadline bounds the wait
			case <-wsGood:
			case <-r.Context().Done():
			}
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
		case "/ws":
			websocket.Handler(func(ws *websocket.Conn) {
				if strings.HasPrefix(ws.Request().Host, "localhost") {
					wsBadHits.Add(1)
				} else {
					wsGoodOnce.Do(func() { close(wsGood) })
				}
				websocket.Message.Send(ws, "hello")
			}).ServeHTTP(w, r)
		}
	}))
	defer site.Close()
	defer close(hang)

	// The main server's address is allowed by listing it; private
	// addresses are otherwise denied, so "other" (another loopback
	// address) and localhost are refused, as is meta.rebind.test, which
	// the test resolver maps to 169.254.169.254.
	policy := web.Policy{AllowHosts: []string{"127.0.0.1", "meta.rebind.test", "localhost"}, DenyHosts: []string{"localhost"}}
	if otherHost == "127.0.0.1" {
		policy.AllowPrivate = true
	}
	// Each step has its own deadline, scaled for the machine's load; the
	// browser's cold start is a step of its own, done before the others
	// and waited for (the browser's context is its readiness), so that no
	// page load is timed against it.
	const stepTime = 20 * time.Second
	b := testBrowser(t, WithPolicy(policy), WithViewport(640, 400), WithTimeout(scaled(60*time.Second)),
		func(c *chromeConfig) { c.lookup = testLookup })
	if _, err := b.browser(step(t, 60*time.Second)); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}

	t.Run("Text", func(t *testing.T) {
		ctx := step(t, stepTime)
		text, err := b.Text(ctx, site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		if want := "Hello, browser\n\nset by script"; text != want {
			t.Errorf("Text: got %q, want %q", text, want)
		}
		if okHits.Load() == 0 {
			t.Error("the allowed image was not loaded")
		}
		if n := otherHits.Load(); n != 0 {
			t.Errorf("denied subresources reached the other server %d times", n)
		}
		text, err = b.Text(ctx, site.URL+"/plain")
		if err != nil || text != "just text" {
			t.Errorf("text/plain: got %q, %v", text, err)
		}
	})

	t.Run("Screenshot", func(t *testing.T) {
		ctx := step(t, stepTime)
		img, err := b.Screenshot(ctx, site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		im, err := png.Decode(bytes.NewReader(img))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		if got := im.Bounds().Size(); got.X != 640 || got.Y != 400 {
			t.Errorf("screenshot is %v, want 640x400", got)
		}
	})

	t.Run("DeniedBeforeLoading", func(t *testing.T) {
		ctx := step(t, stepTime)
		for u, want := range map[string]string{
			"http://169.254.169.254/":   "text http://169.254.169.254/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
			"http://0xa9fea9fe/":        "text http://0xa9fea9fe/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
			"file:///etc/passwd":        `text file:///etc/passwd: scheme "file" is not http or https; denied by policy`,
			"http://localhost/":         `text http://localhost/: host localhost matches DenyHosts entry "localhost"; denied by policy`,
			"http://example.com/":       "text http://example.com/: host example.com is not in AllowHosts; denied by policy",
			"chrome://settings":         `text chrome://settings: scheme "chrome" is not http or https; denied by policy`,
			"javascript:alert(1)":       `text javascript:alert(1): scheme "javascript" is not http or https; denied by policy`,
			"view-source:http://x.com/": `text view-source:http://x.com/: scheme "view-source" is not http or https; denied by policy`,
		} {
			_, err := b.Text(ctx, u)
			if err == nil || err.Error() != want || !errors.Is(err, web.ErrDenied) {
				t.Errorf("Text(%s):\n got %v\nwant %s", u, err, want)
			}
		}
	})

	t.Run("RedirectDenied", func(t *testing.T) {
		ctx := step(t, stepTime)
		_, err := b.Text(ctx, site.URL+"/to-denied")
		want := fmt.Sprintf(`text %s/to-denied: http://localhost:%s/: host localhost matches DenyHosts entry "localhost"; denied by policy`, site.URL, otherPort)
		if err == nil || err.Error() != want || !errors.Is(err, web.ErrDenied) {
			t.Errorf("got %v\nwant %s", err, want)
		}
		_, err = b.Text(ctx, site.URL+"/to-denied-https")
		want = fmt.Sprintf(`text %s/to-denied-https: localhost:%s: host localhost matches DenyHosts entry "localhost"; denied by policy`, site.URL, otherPort)
		if err == nil || err.Error() != want || !errors.Is(err, web.ErrDenied) {
			t.Errorf("got %v\nwant %s", err, want)
		}
		_, err = b.Screenshot(ctx, site.URL+"/to-meta")
		want = fmt.Sprintf(`screenshot %s/to-meta: http://169.254.169.254/latest/meta-data/: address 169.254.169.254 is link-local (cloud metadata); denied by policy`, site.URL)
		if err == nil || err.Error() != want || !errors.Is(err, web.ErrDenied) {
			t.Errorf("got %v\nwant %s", err, want)
		}
		if n := otherHits.Load(); n != 0 {
			t.Errorf("the other server got %d requests, want 0", n)
		}
	})

	t.Run("WebSocket", func(t *testing.T) {
		ctx := step(t, stepTime)
		// Both go through the proxy: the one to a denied host is refused.
		if _, err := b.Text(ctx, site.URL+"/ws-page"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-wsGood:
		default:
			t.Error("the allowed WebSocket did not connect")
		}
		if n := wsBadHits.Load(); n != 0 {
			t.Errorf("the denied WebSocket connected %d times", n)
		}
	})

	t.Run("Timeout", func(t *testing.T) {
		ctx := step(t, stepTime)
		tctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		_, err := b.Text(tctx, site.URL+"/hang")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "text "+site.URL+"/hang: ") {
			t.Errorf("got %v, want a deadline error", err)
		}
		// The browser survives a call's timeout.
		if _, err := b.Text(ctx, site.URL+"/plain"); err != nil {
			t.Errorf("after a timeout: %v", err)
		}
	})

	t.Run("Download", func(t *testing.T) {
		ctx := step(t, stepTime)
		// A download is not a page; it must not be saved anywhere.
		_, err := b.Text(ctx, site.URL+"/download")
		if err == nil || !strings.Contains(err.Error(), "downloads are refused") {
			t.Errorf("download: got %v, want an error saying downloads are refused", err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		ctx := step(t, stepTime)
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				text, err := b.Text(ctx, site.URL+"/plain")
				if err != nil || text != "just text" {
					t.Errorf("concurrent Text: %q, %v", text, err)
				}
			})
		}
		wg.Wait()
	})

	t.Run("RestartAfterCrash", func(t *testing.T) {
		// A second start of the browser: a step as long as the first.
		ctx := step(t, 60*time.Second)
		b.sem <- struct{}{}
		bctx := b.bctx
		<-b.sem
		if bctx == nil {
			t.Skip("no browser running")
		}
		if err := chromedp.FromContext(bctx).Browser.Process().Kill(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-bctx.Done():
		case <-ctx.Done():
			t.Fatal("the browser's context did not end after the process was killed")
		}
		text, err := b.Text(ctx, site.URL+"/plain")
		if err != nil || text != "just text" {
			t.Errorf("after a crash: got %q, %v", text, err)
		}
	})

	t.Run("Closed", func(t *testing.T) {
		ctx := step(t, stepTime)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		_, err := b.Text(ctx, site.URL+"/plain")
		if err == nil || !strings.Contains(err.Error(), "browser is closed") {
			t.Errorf("after Close: got %v", err)
		}
	})
}
