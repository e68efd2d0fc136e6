package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPolicyProxy(t *testing.T) {
	var hits atomic.Int32
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok "+r.URL.Path)
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	secure := httptest.NewUnstartedServer(handler)
	secure.Config.ErrorLog = discardLog // the tunnel closed under it below
	secure.StartTLS()
	defer secure.Close()

	if _, err := NewPolicyProxy(Policy{DenyHosts: []string{"a b"}}, nil); err == nil || !strings.Contains(err.Error(), "DenyHosts") {
		t.Errorf("a malformed policy: got %v, want an error naming DenyHosts", err)
	}
	p, err := NewPolicyProxy(Policy{AllowPrivate: true, DenyHosts: []string{"localhost"}}, testLookup)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxyURL, _ := url.Parse(p.URL())
	tlsConfig := secure.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsConfig.InsecureSkipVerify = true // the test certificate names 127.0.0.1 only
	client := &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConfig},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // the browser follows redirects itself
		},
	}
	defer client.CloseIdleConnections()
	ctx := watchdog(t)
	get := func(u string) (int, string, string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Get(DeniedHeader), nil
	}

	// Allowed, over http and through a CONNECT tunnel.
	for _, u := range []string{plain.URL + "/a", secure.URL + "/b"} {
		status, body, _, err := get(u)
		if err != nil || status != 200 || !strings.HasPrefix(body, "ok /") {
			t.Errorf("GET %s through the proxy: %d %q %v", u, status, body, err)
		}
	}
	// A redirect is passed on, not followed.
	if status, _, _, err := get(plain.URL + "/redirect"); err != nil || status != http.StatusFound {
		t.Errorf("redirect: got %d, %v; want 302", status, err)
	}
	before := hits.Load()

	// Refused by name, and by the address a name resolves to.
	denials := map[string]string{
		"http://localhost:" + port(t, plain) + "/":        `host localhost matches DenyHosts entry "localhost"`,
		"http://meta.rebind.test:" + port(t, plain) + "/": "address 169.254.169.254 (of host meta.rebind.test) is link-local (cloud metadata)",
		"http://169.254.169.254/":                         "address 169.254.169.254 is link-local (cloud metadata)",
	}
	for u, want := range denials {
		status, body, mark, err := get(u)
		if err != nil || status != http.StatusForbidden || mark == "" || !strings.Contains(body, want) {
			t.Errorf("GET %s: got %d %q (mark %q) %v; want 403 with %q", u, status, body, mark, err, want)
		}
	}
	for _, u := range []string{"https://localhost:" + port(t, secure) + "/", "https://meta.rebind.test:" + port(t, secure) + "/"} {
		if _, _, _, err := get(u); err == nil {
			t.Errorf("GET %s: no error, want the CONNECT refused", u)
		}
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("denied requests reached the servers %d times", n)
	}
	ds := p.Denials()
	if len(ds) != 5 || !errors.Is(ds[0], ErrDenied) {
		t.Errorf("denials: got %d %v, want 5", len(ds), ds)
	}
	for u, want := range map[string]string{
		"http://169.254.169.254/":                     "http://169.254.169.254/: address 169.254.169.254 is link-local (cloud metadata)",
		"http://169.254.169.254/other":                "http://169.254.169.254/: address 169.254.169.254 is link-local (cloud metadata)",
		"https://localhost:" + port(t, secure) + "/x": "localhost:" + port(t, secure) + `: host localhost matches DenyHosts entry "localhost"`,
		"https://META.rebind.test:" + port(t, secure): "meta.rebind.test:" + port(t, secure) + ": address 169.254.169.254 (of host meta.rebind.test)",
		"https://example.com/":                        "",
		"http://localhost:" + port(t, plain) + "/":    `http://localhost:` + port(t, plain) + `/: host localhost matches DenyHosts entry "localhost"`,
	} {
		d := p.DenialFor(u)
		if want == "" && d != nil || want != "" && (d == nil || !strings.HasPrefix(d.Error(), want)) {
			t.Errorf("DenialFor(%s): got %v, want %q", u, d, want)
		}
	}

	// Not a proxy request.
	resp, err := http.Get(p.URL() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("direct request: got %d, want 400", resp.StatusCode)
	}

	// An open tunnel ends when the proxy closes.
	raw, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	target := secure.Listener.Addr().String()
	fmt.Fprintf(raw, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(raw)
	cresp, err := http.ReadResponse(br, nil)
	if err != nil || cresp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v, %v", cresp, err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("tunnel after Close: got %v, want EOF", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
