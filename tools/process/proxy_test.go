package process

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// testHosts is what testLookup resolves; names below loop.test resolve
// to 127.0.0.1 too, and every other name does not exist.
var testHosts = map[string][]string{
	"example.com":    {"127.0.0.1"},
	"both.test":      {"127.0.0.1"},
	"a.test":         {"127.0.0.1"},
	"other.test":     {"127.0.0.1"},
	"loopv6.test":    {"::1"},
	"private.test":   {"10.0.0.1"},
	"linklocal.test": {"169.254.169.254"},
	"mapped.test":    {"::ffff:127.0.0.1"},
	"nat64.test":     {"64:ff9b::a00:1"},
	"mixed.test":     {"10.0.0.1", "127.0.0.1"},
}

func testLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs := testHosts[host]
	if strings.HasSuffix(host, ".loop.test") {
		addrs = []string{"127.0.0.1"}
	}
	if addrs == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// testProxy starts a proxy that resolves with testLookup, allowing
// loopback addresses unless opts says otherwise through its own lookup.
func testProxy(t testing.TB, allow []string, opts proxyOptions) *Proxy {
	t.Helper()
	if opts.lookup == nil {
		opts.lookup = testLookup
	}
	p, err := newProxy(allow, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// echoServer accepts connections on the loopback and sends back what it
// reads, closing its side for writing at the end of the input. It returns
// the port.
func echoServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
				c.(*net.TCPConn).CloseWrite()
			}()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// proxyRequest sends req on a new connection to addr and reads the
// answer. For a 200 the body is left unread and the connection, with the
// reader that holds what came after the answer, stays open for the
// tunnel; otherwise body holds the body and the connection is closed.
func proxyRequest(t testing.TB, network, addr, req string) (resp *http.Response, body string, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(testwait.Step)) // a hung proxy fails the test, not the run
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br = bufio.NewReader(c)
	method, _, _ := strings.Cut(req, " ")
	resp, err = http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		c.Close()
		t.Fatalf("%q: %v", req, err)
	}
	if resp.StatusCode == http.StatusOK {
		t.Cleanup(func() { c.Close() })
		return resp, "", c, br
	}
	b, _ := io.ReadAll(resp.Body)
	c.Close()
	return resp, string(b), nil, nil
}

func connectReq(target string) string {
	return "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n"
}

// echoThrough checks that a tunnel carries data both ways and passes on
// a half-close: the echo server's answer ends after the client's input.
func echoThrough(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	if _, err := io.WriteString(c, "ping"); err != nil {
		t.Fatal(err)
	}
	if err := closeWrite(c); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(br)
	if err != nil || string(got) != "ping" {
		t.Fatalf("through the tunnel: %q, %v; want ping and the end", got, err)
	}
}

func TestCheckHostPattern(t *testing.T) {
	good := map[string]hostRule{
		"example.com":             {name: "example.com", port: 443},
		"Example.COM.":            {name: "example.com", port: 443},
		" api.example.com ":       {name: "api.example.com", port: 443},
		"example.com:8443":        {name: "example.com", port: 8443},
		"*.example.com":           {suffix: ".example.com", port: 443},
		"*.Example.com:8443":      {suffix: ".example.com", port: 8443},
		"localhost":               {name: "localhost", port: 443},
		"xn--bcher-kva.de":        {name: "xn--bcher-kva.de", port: 443},
		"my_host.internal.corp:1": {name: "my_host.internal.corp", port: 1},
	}
	for in, want := range good {
		r, err := parseHostPattern(in)
		if err != nil || r != want {
			t.Errorf("parseHostPattern(%q) = %+v, %v; want %+v", in, r, err, want)
		}
		if err := checkHostPattern(in); err != nil {
			t.Errorf("checkHostPattern(%q) = %v", in, err)
		}
	}
	bad := map[string]string{
		"":                               `allowed host "" is empty; write a host name such as example.com, or example.com:8443 for a port other than 443`,
		"  ":                             `allowed host "  " is empty; write a host name such as example.com, or example.com:8443 for a port other than 443`,
		"https://Example.com/x?y=1":      `allowed host "https://Example.com/x?y=1" is a URL; write the host only: example.com`,
		"http://example.com:8080":        `allowed host "http://example.com:8080" is a URL; write the host only: example.com:8080`,
		"example.com/path":               `allowed host "example.com/path" is not a host name; write the host only, as in example.com or example.com:8443`,
		"user@example.com":               `allowed host "user@example.com" is not a host name; write the host only, as in example.com or example.com:8443`,
		"10.0.0.1":                       `allowed host "10.0.0.1" is an IP address (10.0.0.1); the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"10.0.0.1:443":                   `allowed host "10.0.0.1:443" is an IP address (10.0.0.1); the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"::1":                            `allowed host "::1" is an IP address (::1); the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"[::1]:443":                      `allowed host "[::1]:443" is an IP address (::1); the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"[example.com]:443":              `allowed host "[example.com]:443" is not a valid host name; write letters, digits, hyphens and dots, as in example.com`,
		"2130706433":                     `allowed host "2130706433" looks like an IP address; the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"0x7f.1":                         `allowed host "0x7f.1" looks like an IP address; the sandbox's proxy connects by host name only: allow the name the command connects to`,
		"example.com:0":                  `allowed host "example.com:0" has a bad port: port "0" is not a number from 1 to 65535; leave it out for 443`,
		"example.com:65536":              `allowed host "example.com:65536" has a bad port: port "65536" is not a number from 1 to 65535; leave it out for 443`,
		"example.com:https":              `allowed host "example.com:https" has a bad port: port "https" is not a number from 1 to 65535; leave it out for 443`,
		"example.com:":                   `allowed host "example.com:" has a bad port: port "" is not a number from 1 to 65535; leave it out for 443`,
		"example.com:+443":               `allowed host "example.com:+443" has a bad port: port "+443" is not a number from 1 to 65535; leave it out for 443`,
		"example.com:1:2":                `allowed host "example.com:1:2" is not host or host:port, as in example.com:8443`,
		"*":                              `allowed host "*" has a wildcard that is not a whole first label; write *.example.com for the names below example.com`,
		"*.com":                          `allowed host "*.com" would allow every host under "com"; list the hosts, or a domain below it as in *.example.com`,
		"*example.com":                   `allowed host "*example.com" has a wildcard that is not a whole first label; write *.example.com for the names below example.com`,
		"api.*.example.com":              `allowed host "api.*.example.com" has a wildcard that is not a whole first label; write *.example.com for the names below example.com`,
		"*.*.example.com":                `allowed host "*.*.example.com" is not a valid host name; write letters, digits, hyphens and dots, as in example.com`,
		"exa$mple.com":                   `allowed host "exa$mple.com" is not a valid host name; write letters, digits, hyphens and dots, as in example.com`,
		"example..com":                   `allowed host "example..com" is not a valid host name; write letters, digits, hyphens and dots, as in example.com`,
		"bücher.de":                      `allowed host "bücher.de" is not ASCII; write it as xn--bcher-kva.de`,
		strings.Repeat("a", 64) + ".com": `allowed host "` + strings.Repeat("a", 64) + `.com" is not a valid host name; write letters, digits, hyphens and dots, as in example.com`,
	}
	for in, want := range bad {
		err := checkHostPattern(in)
		if err == nil || err.Error() != want {
			t.Errorf("checkHostPattern(%q) = %v\nwant %s", in, err, want)
		}
		if _, err := newProxy([]string{"example.com", in}, proxyOptions{}); err == nil {
			t.Errorf("StartProxy with %q started", in)
		}
	}
	// The sandbox checks its configuration with it.
	if _, err := NewSandbox(t.TempDir(), SandboxConfig{AllowHosts: []string{"https://example.com"}}); err == nil || !strings.Contains(err.Error(), "is a URL") {
		t.Errorf("NewSandbox with a URL: %v", err)
	}
}

func TestProxyConnectTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p := testProxy(t, []string{"example.com:" + port}, proxyOptions{allowLoopback: true})

	tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	proxyURL, _ := url.Parse("http://" + p.Addr())
	viaUnix := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", p.SocketPath())
	}
	for name, tr := range map[string]*http.Transport{
		"tcp":  {Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConf},
		"unix": {Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConf, DialContext: viaUnix},
	} {
		c := &http.Client{Transport: tr, Timeout: testwait.Step}
		resp, err := c.Get("https://example.com:" + port + "/x")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.StatusCode != 200 || string(b) != "hello /x" {
			t.Errorf("%s: %d %q", name, resp.StatusCode, b)
		}
		// An https URL to a host that is not allowed fails at CONNECT.
		_, err = c.Get("https://other.test:" + port + "/")
		if err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: other.test: %v; want Forbidden", name, err)
		}
	}
}

func TestProxyAnswers(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	p := testProxy(t, []string{"example.com:" + port, "*.loop.test:" + port}, proxyOptions{allowLoopback: true})
	for _, tc := range []struct {
		req    string
		status int
		body   string // the whole body; "" for a tunnel
	}{
		{connectReq("example.com:" + port), 200, ""},
		{connectReq("EXAMPLE.com.:" + port), 200, ""},
		{connectReq("a.loop.test:" + port), 200, ""},
		{connectReq("deep.a.LOOP.test:" + port), 200, ""},
		{connectReq("loop.test:" + port), 403, "agentsh: loop.test:" + port + " is not among the hosts this sandbox may reach; the person running agentsh can allow it with --allow-host loop.test:" + port + " or config(allow_hosts = [...])\n"},
		{connectReq("other.test:" + port), 403, "agentsh: other.test:" + port + " is not among the hosts this sandbox may reach; the person running agentsh can allow it with --allow-host other.test:" + port + " or config(allow_hosts = [...])\n"},
		{connectReq("Example.com:443"), 403, "agentsh: example.com:443 is not among the hosts this sandbox may reach; the person running agentsh can allow it with --allow-host example.com or config(allow_hosts = [...])\n"},
		{connectReq("example.com.evil.test:" + port), 403, "agentsh: example.com.evil.test:" + port + " is not among the hosts this sandbox may reach; the person running agentsh can allow it with --allow-host example.com.evil.test:" + port + " or config(allow_hosts = [...])\n"},
		{connectReq("127.0.0.1:" + port), 403, "agentsh: CONNECT to an IP address (127.0.0.1:" + port + ") is refused: the sandbox reaches its allowed hosts by name only\n"},
		{connectReq("[::1]:" + port), 403, "agentsh: CONNECT to an IP address ([::1]:" + port + ") is refused: the sandbox reaches its allowed hosts by name only\n"},
		{connectReq("2130706433:" + port), 403, "agentsh: CONNECT to an IP address (2130706433:" + port + ") is refused: the sandbox reaches its allowed hosts by name only\n"},
		{connectReq("example.com"), 400, "agentsh: CONNECT target \"example.com\" is not host:port\n"},
		{connectReq("example.com:0"), 400, "agentsh: CONNECT target \"example.com:0\": port \"0\" is not a number from 1 to 65535\n"},
		{connectReq("ex!ample.com:" + port), 400, "agentsh: CONNECT target \"ex!ample.com:" + port + "\" is not a host name and port\n"},
		{"CONNECT /x HTTP/1.1\r\nHost: example.com\r\n\r\n", 400, "agentsh: CONNECT target \"/x\" is not host:port\n"},
		{"GET http://example.com:" + port + "/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 405, "agentsh: only HTTPS through CONNECT is allowed, not GET http://example.com:" + port + "/; use an https:// URL\n"},
		{"POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n", 405, "agentsh: only HTTPS through CONNECT is allowed, not POST /; use an https:// URL\n"},
	} {
		resp, body, c, br := proxyRequest(t, "tcp", p.Addr(), tc.req)
		if resp.StatusCode != tc.status || body != tc.body {
			t.Errorf("%q: %d %q\nwant %d %q", tc.req, resp.StatusCode, body, tc.status, tc.body)
		}
		if tc.status == 405 && resp.Header.Get("Allow") != "CONNECT" {
			t.Errorf("%q: Allow %q", tc.req, resp.Header.Get("Allow"))
		}
		if c != nil {
			echoThrough(t, c, br)
		}
	}
}

// TestProxyEarlyData: what a client sends right after its CONNECT,
// before the answer (as some TLS clients do), reaches the host.
func TestProxyEarlyData(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	p := testProxy(t, []string{"example.com:" + port}, proxyOptions{allowLoopback: true})
	_, _, c, br := proxyRequest(t, "unix", p.SocketPath(), connectReq("example.com:"+port)+"early")
	if err := closeWrite(c); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(br); err != nil || string(got) != "early" {
		t.Errorf("early data: %q, %v", got, err)
	}
}

func TestProxyRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	names := []string{"example.com", "loopv6.test", "mapped.test", "private.test", "linklocal.test", "nat64.test", "mixed.test", "nohost.test", "metadata.google.internal"}
	var allow []string
	for _, n := range names {
		allow = append(allow, n+":"+port)
	}
	want := map[bool]map[string]string{
		false: {
			"example.com":              "403 agentsh: example.com resolves to 127.0.0.1, which is loopback; the sandbox reaches public addresses only\n",
			"loopv6.test":              "403 agentsh: loopv6.test resolves to ::1, which is loopback; the sandbox reaches public addresses only\n",
			"mapped.test":              "403 agentsh: mapped.test resolves to 127.0.0.1, which is loopback; the sandbox reaches public addresses only\n",
			"mixed.test":               "403 agentsh: mixed.test resolves to 10.0.0.1, which is private; the sandbox reaches public addresses only\n",
			"private.test":             "403 agentsh: private.test resolves to 10.0.0.1, which is private; the sandbox reaches public addresses only\n",
			"linklocal.test":           "403 agentsh: linklocal.test resolves to 169.254.169.254, which is link-local (cloud metadata); the sandbox reaches public addresses only\n",
			"nat64.test":               "403 agentsh: nat64.test resolves to 64:ff9b::a00:1, which is a NAT64 address embedding 10.0.0.1, which is private; the sandbox reaches public addresses only\n",
			"nohost.test":              "502 agentsh: cannot resolve nohost.test: no such host\n",
			"metadata.google.internal": "403 agentsh: metadata.google.internal is a cloud metadata service, which sandboxed commands may not reach\n",
		},
		true: { // loopback allowed, for tests; nothing else
			"example.com":              "200 ",
			"mapped.test":              "200 ",
			"mixed.test":               "200 ", // the loopback address, after the private one
			"private.test":             "403 agentsh: private.test resolves to 10.0.0.1, which is private; the sandbox reaches public addresses only\n",
			"linklocal.test":           "403 agentsh: linklocal.test resolves to 169.254.169.254, which is link-local (cloud metadata); the sandbox reaches public addresses only\n",
			"nat64.test":               "403 agentsh: nat64.test resolves to 64:ff9b::a00:1, which is a NAT64 address embedding 10.0.0.1, which is private; the sandbox reaches public addresses only\n",
			"nohost.test":              "502 agentsh: cannot resolve nohost.test: no such host\n",
			"metadata.google.internal": "403 agentsh: metadata.google.internal is a cloud metadata service, which sandboxed commands may not reach\n",
		},
	}
	for _, loopback := range []bool{false, true} {
		p := testProxy(t, allow, proxyOptions{allowLoopback: loopback})
		for name, w := range want[loopback] {
			resp, body, c, br := proxyRequest(t, "tcp", p.Addr(), connectReq(name+":"+port))
			if got := fmt.Sprintf("%d %s", resp.StatusCode, body); got != w {
				t.Errorf("loopback allowed %v: %s: %q\nwant %q", loopback, name, got, w)
			}
			if c != nil {
				echoThrough(t, c, br)
			}
		}
	}
}

func TestProxyHeaderLimits(t *testing.T) {
	t.Parallel()
	// A header past the limit: 431, and the connection is closed. (The
	// header timeout is long here, so a busy machine cannot turn the 431
	// into a timeout; the header that never ends below has a short one.)
	p := testProxy(t, []string{"example.com"}, proxyOptions{maxHeader: 1024})
	big := "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\nX-Pad: " + strings.Repeat("a", 64<<10) + "\r\n\r\n"
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testwait.Step))
	go io.WriteString(c, big) // the proxy stops reading; the write may fail
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a 64 KiB header: %v, %v; want 431", resp, err)
	}

	// A header that never ends: the proxy closes the connection.
	p = testProxy(t, []string{"example.com"}, proxyOptions{headerTimeout: 300 * time.Millisecond, maxHeader: 1024})
	for _, partial := range []string{"", "CONNECT example.com:443 HTTP/1.1\r\n", "CONNECT example.com:443 HTTP/1.1\r\nHost: exa"} {
		c, err := net.Dial("unix", p.SocketPath())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testwait.Step))
		io.WriteString(c, partial)
		n, err := io.Copy(io.Discard, c)
		c.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%q: the connection was still open after %s", partial, testwait.Step)
		} else if n > 0 && partial == "" {
			t.Errorf("%q: %d bytes of answer to nothing", partial, n)
		}
	}
}

func TestProxyIdleTunnel(t *testing.T) {
	t.Parallel()
	// A server that accepts and says nothing.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p := testProxy(t, []string{"example.com:" + port}, proxyOptions{allowLoopback: true, idleTimeout: 300 * time.Millisecond})
	_, _, c, br := proxyRequest(t, "tcp", p.Addr(), connectReq("example.com:"+port))
	server := <-accepted
	defer server.Close()
	// Neither side sends: the proxy ends the tunnel both ways.
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Errorf("client side: %v; want the end of the tunnel", err)
	}
	server.SetDeadline(time.Now().Add(testwait.Step))
	if _, err := io.Copy(io.Discard, server); err != nil {
		t.Errorf("server side: %v; want the end of the tunnel", err)
	}
	c.Close()
}

func TestProxyConnectionCap(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	p := testProxy(t, []string{"example.com:" + port}, proxyOptions{allowLoopback: true, maxConns: 2})
	_, _, c1, _ := proxyRequest(t, "tcp", p.Addr(), connectReq("example.com:"+port))
	_, _, c2, _ := proxyRequest(t, "unix", p.SocketPath(), connectReq("example.com:"+port))

	// A third connection waits for one of the two to close.
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	io.WriteString(c3, connectReq("example.com:"+port))
	c3.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := c3.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a third connection over the cap of 2 was answered: %d, %v", n, err)
	}
	c1.Close()
	c3.SetReadDeadline(time.Now().Add(testwait.Step))
	resp, err := http.ReadResponse(bufio.NewReader(c3), &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the third connection after one closed: %v, %v", resp, err)
	}
	c2.Close()
}

func TestProxySetAllowed(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	listA := []string{"both.test:" + port, "a.test:" + port}
	listB := []string{"both.test:" + port}
	p := testProxy(t, listA, proxyOptions{allowLoopback: true})

	if err := p.SetAllowed([]string{"both.test", "http://x"}); err == nil || !strings.Contains(err.Error(), `allowed host "http://x" is a URL`) {
		t.Errorf("SetAllowed with a URL: %v", err)
	}
	if resp, _, _, _ := proxyRequest(t, "tcp", p.Addr(), connectReq("a.test:"+port)); resp.StatusCode != 200 {
		t.Errorf("a malformed SetAllowed changed the list: a.test got %d", resp.StatusCode)
	}

	// Requests while the list changes: both.test is always allowed,
	// other.test never, a.test as the list of the moment says.
	stop := make(chan struct{})
	var flips sync.WaitGroup
	flips.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			l := listA
			if i%2 == 1 {
				l = listB
			}
			if err := p.SetAllowed(l); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var seenA [2]atomic.Int32 // refused, allowed
	var reqs sync.WaitGroup
	for g := 0; g < 4; g++ {
		reqs.Go(func() {
			for i := 0; i < 15; i++ {
				for host, want := range map[string]int{"both.test": 200, "other.test": 403, "a.test": 0} {
					resp, _, c, _ := proxyRequest(t, "tcp", p.Addr(), connectReq(host+":"+port))
					if c != nil {
						c.Close()
					}
					switch {
					case want == 0 && resp.StatusCode == 200:
						seenA[1].Add(1)
					case want == 0 && resp.StatusCode == 403:
						seenA[0].Add(1)
					case resp.StatusCode != want:
						t.Errorf("%s while the list changes: %d, want %d", host, resp.StatusCode, want)
					}
				}
			}
		})
	}
	reqs.Wait()
	close(stop)
	flips.Wait()
	if n := seenA[0].Load() + seenA[1].Load(); n != 60 {
		t.Errorf("a.test: %d answers of 200 or 403, want 60", n)
	}
	if err := p.SetAllowed(listB); err != nil {
		t.Fatal(err)
	}
	if resp, _, _, _ := proxyRequest(t, "tcp", p.Addr(), connectReq("a.test:"+port)); resp.StatusCode != 403 {
		t.Errorf("a.test after SetAllowed without it: %d", resp.StatusCode)
	}
}

func TestProxyClose(t *testing.T) {
	t.Parallel()
	port := echoServer(t)
	p, err := newProxy([]string{"example.com:" + port}, proxyOptions{lookup: testLookup, allowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	var tunnels []*bufio.Reader
	for _, network := range []string{"tcp", "unix"} {
		addr := p.Addr()
		if network == "unix" {
			addr = p.SocketPath()
		}
		_, _, c, br := proxyRequest(t, network, addr, connectReq("example.com:"+port))
		io.WriteString(c, "x")
		if b, err := br.ReadByte(); err != nil || b != 'x' {
			t.Fatalf("%s tunnel: %q, %v", network, b, err)
		}
		tunnels = append(tunnels, br)
	}
	// A connection that has sent half a request.
	half, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	io.WriteString(half, "CONNECT exam")
	half.SetDeadline(time.Now().Add(testwait.Step))

	sock := p.SocketPath()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for i, br := range tunnels {
		if _, err := io.Copy(io.Discard, br); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("tunnel %d still open after Close", i)
		}
	}
	if _, err := io.Copy(io.Discard, half); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Error("a connection with half a request still open after Close")
	}
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		c.Close()
		t.Error("the TCP listener accepts after Close")
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket after Close: %v", err)
	}
	if _, err := os.Stat(strings.TrimSuffix(sock, "/proxy.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket's directory after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestProxySocketDir(t *testing.T) {
	t.Parallel()
	p := testProxy(t, nil, proxyOptions{})
	dir := strings.TrimSuffix(p.SocketPath(), "/proxy.sock")
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the socket's directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if host, _, err := net.SplitHostPort(p.Addr()); err != nil || host != "127.0.0.1" {
		t.Errorf("Addr() = %q", p.Addr())
	}
	// No hosts: every CONNECT is refused.
	if resp, _, _, _ := proxyRequest(t, "unix", p.SocketPath(), connectReq("example.com:443")); resp.StatusCode != 403 {
		t.Errorf("no allowed hosts: %d", resp.StatusCode)
	}
}

func TestProxyEnv(t *testing.T) {
	env := proxyEnv([]string{"PATH=/bin", "HTTPS_PROXY=http://elsewhere:1", "no_proxy=*", "HOME=/h"}, "127.0.0.1:4242")
	want := []string{
		"PATH=/bin", "HTTPS_PROXY=http://127.0.0.1:4242", "no_proxy=", "HOME=/h",
		"https_proxy=http://127.0.0.1:4242", "HTTP_PROXY=http://127.0.0.1:4242", "http_proxy=http://127.0.0.1:4242",
		"ALL_PROXY=http://127.0.0.1:4242", "all_proxy=http://127.0.0.1:4242", "NO_PROXY=",
	}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("proxyEnv:\n got %q\nwant %q", env, want)
	}
}

// BenchmarkProxyConnect is one tunnel: connect to the proxy, CONNECT to
// an echo server on the loopback, one byte there and back, close.
func BenchmarkProxyConnect(b *testing.B) {
	port := echoServer(b)
	p := testProxy(b, []string{"example.com:" + port}, proxyOptions{allowLoopback: true})
	req := connectReq("example.com:" + port)
	buf := make([]byte, 1)
	for b.Loop() {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			b.Fatal(err)
		}
		io.WriteString(c, req)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(resp, err)
		}
		c.Write([]byte{'x'})
		if _, err := io.ReadFull(br, buf); err != nil || buf[0] != 'x' {
			b.Fatal(buf, err)
		}
		c.Close()
	}
}
