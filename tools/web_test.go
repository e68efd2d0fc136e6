package tools_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/browser" // registers Chromium: the browser tool
	"github.com/agentsh/agentsh/tools/web"
)

func webServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>alert(1)</script></head><body><h1>Hello</h1><p>See <a href="/docs">the docs</a>.</p></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "just text\n")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("x", 5000))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-page", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\nxxxx"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch(t *testing.T) {
	srv := webServer(t)
	e := newEnv(t, tools.ExtensionConfig{FetchPolicy: web.Policy{AllowPrivate: true}})
	got := e.ok("fetch", map[string]any{"url": srv.URL + "/page"})
	if !strings.Contains(got, "# Hello") || !strings.Contains(got, "[the docs]("+srv.URL+"/docs)") || strings.Contains(got, "alert") {
		t.Errorf("markdown: %q", got)
	}
	if got := e.ok("fetch", map[string]any{"url": srv.URL + "/page", "format": "html"}); !strings.Contains(got, "<h1>Hello</h1>") {
		t.Errorf("html: %q", got)
	}
	if got := e.ok("fetch", map[string]any{"url": srv.URL + "/page", "format": "text"}); !strings.Contains(got, "Hello") || strings.Contains(got, "<h1>") {
		t.Errorf("text: %q", got)
	}
	if got := e.ok("fetch", map[string]any{"url": srv.URL + "/plain"}); got != "just text\n" {
		t.Errorf("plain text: %q", got)
	}
	if got := e.ok("fetch", map[string]any{"url": srv.URL + "/to-page"}); !strings.HasPrefix(got, "[fetched "+srv.URL+"/page, redirected from "+srv.URL+"/to-page]") {
		t.Errorf("redirect note: %q", got)
	}
	got = e.ok("fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 100})
	if !strings.HasPrefix(got, strings.Repeat("x", 100)+"\n[body cut at 100 bytes") {
		t.Errorf("max_bytes: %q", got)
	}
	e.fails("fetch", map[string]any{"url": srv.URL + "/missing"}, core.KindFailed, "HTTP 404 Not Found", "no such page")
	e.fails("fetch", map[string]any{"url": srv.URL + "/to-metadata"}, core.KindFailed, "169.254.169.254")
	e.fails("fetch", map[string]any{"url": srv.URL + "/image"}, core.KindFailed, "image/png")
	e.fails("fetch", map[string]any{"url": "file:///etc/passwd"}, core.KindFailed, "file")
	e.fails("fetch", map[string]any{"url": srv.URL + "/page", "format": "pdf"}, core.KindInvalidArguments, "/format")

	// The default policy refuses private addresses such as this server's.
	strict := newEnv(t, tools.ExtensionConfig{})
	strict.fails("fetch", map[string]any{"url": srv.URL + "/page"}, core.KindFailed, "127.0.0.1")
}

func TestBrowser(t *testing.T) {
	if _, err := browser.FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	srv := webServer(t)
	e := newEnv(t, tools.ExtensionConfig{FetchPolicy: web.Policy{AllowPrivate: true}})
	if got := e.ok("browser", map[string]any{"url": srv.URL + "/page", "action": "text"}); !strings.Contains(got, "Hello") {
		t.Errorf("text: %q", got)
	}
	res := e.call("browser", map[string]any{"url": srv.URL + "/page", "action": "screenshot"})
	if !res.OK() || len(res.Blocks) != 1 || res.Blocks[0].MIMEType != "image/png" {
		t.Fatalf("screenshot: %v, %d blocks", res.Err, len(res.Blocks))
	}
	if _, err := png.Decode(bytes.NewReader(res.Blocks[0].Data)); err != nil {
		t.Errorf("screenshot is not a PNG: %v", err)
	}
	e.fails("browser", map[string]any{"url": "http://169.254.169.254/", "action": "text"}, core.KindFailed, "169.254.169.254")
}

func TestBrowserWithoutChromium(t *testing.T) {
	t.Setenv("CHROME_PATH", t.TempDir()+"/no-chromium-here")
	e := newEnv(t, tools.ExtensionConfig{})
	e.fails("browser", map[string]any{"url": "https://example.com", "action": "text"}, core.KindFailed, "apt-get install chromium")
}
