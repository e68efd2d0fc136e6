package process

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/idna"

	"github.com/agentsh/agentsh/internal/netclass"
	"github.com/agentsh/agentsh/internal/tunnels"
)

// Bounds of a Proxy.
const (
	// proxyHeaderTimeout bounds the wait for a request's header.
	proxyHeaderTimeout = 10 * time.Second
	// proxyMaxHeader bounds a request's header, in bytes (net/http allows
	// 4 KiB more before it answers 431).
	proxyMaxHeader = 8 << 10
	// proxyMaxConns bounds the connections open at a time, tunnels
	// included; a client past it waits until one closes.
	proxyMaxConns = 128
	// proxyIdleTimeout closes a tunnel with no traffic either way, and a
	// kept-alive connection with no request, for that long.
	proxyIdleTimeout = 5 * time.Minute
	// proxyDialTimeout bounds resolving and connecting to a host.
	proxyDialTimeout = 30 * time.Second
)

// Proxy is agentsh's loopback HTTP(S) proxy for sandboxed commands: it
// opens CONNECT tunnels to the allowed hosts, by name, and nothing else.
//
// A sandboxed command finds it through HTTPS_PROXY and the like (see
// proxyEnv), at Addr on the host's loopback (the Landlock backend lets
// the command connect to that one port) or, from inside Bubblewrap's
// network namespace, through a bridge to SocketPath.
//
// Allowed hosts are written as in checkHostPattern: "example.com" (port
// 443), "example.com:8443", "*.example.com" (any subdomain, not
// example.com itself), case-insensitive. A CONNECT to an IP address or to
// a host that is not allowed is answered 403, any other request 405, with
// a one-line reason in the body, which the command's user sees. The proxy
// resolves an allowed name itself and connects only to public addresses:
// a name that resolves to a loopback, private, link-local, cloud
// metadata, multicast or unspecified address (internal/netclass) is
// refused, so that an allowed name cannot be made to reach this machine's
// services or the local network.
//
// It is bounded: a request's header must arrive within 10 s and hold at
// most 8 KiB, at most 128 connections are open at a time (more wait), a
// tunnel with no traffic either way for 5 minutes is closed, and
// connecting to a host gives up after 30 s. It logs nothing.
//
// A Proxy is safe for concurrent use.
type Proxy struct {
	opts    proxyOptions
	tcp     net.Listener
	unix    net.Listener
	dir     string // the private directory of the unix socket
	srv     *http.Server
	ctx     context.Context // ends at Close
	cancel  context.CancelFunc
	allowed atomic.Pointer[[]hostRule]

	// tunnels counts the Serve loops, the requests being handled and the
	// tunnels, and ends the tunnels on Close.
	tunnels tunnels.Set
}

// proxyOptions are what tests change; the zero value is the defaults.
type proxyOptions struct {
	// lookup resolves a host name; nil means the system's resolver.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// allowLoopback lets allowed names resolve to loopback addresses, so
	// that tests can reach servers on this machine.
	allowLoopback bool

	headerTimeout, idleTimeout, dialTimeout time.Duration
	maxHeader, maxConns                     int
}

func (o proxyOptions) withDefaults() proxyOptions {
	if o.lookup == nil {
		o.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if o.headerTimeout <= 0 {
		o.headerTimeout = proxyHeaderTimeout
	}
	if o.idleTimeout <= 0 {
		o.idleTimeout = proxyIdleTimeout
	}
	if o.dialTimeout <= 0 {
		o.dialTimeout = proxyDialTimeout
	}
	if o.maxHeader <= 0 {
		o.maxHeader = proxyMaxHeader
	}
	if o.maxConns <= 0 {
		o.maxConns = proxyMaxConns
	}
	return o
}

// StartProxy starts a Proxy that lets through the hosts in allow (see
// checkHostPattern); a malformed entry is an error and starts nothing.
// Stop it with Close.
func StartProxy(allow []string) (*Proxy, error) { return newProxy(allow, proxyOptions{}) }

func newProxy(allow []string, opts proxyOptions) (*Proxy, error) {
	rules, err := parseHostPatterns(allow)
	if err != nil {
		return nil, err
	}
	p := &Proxy{opts: opts.withDefaults()}
	p.allowed.Store(&rules)
	if err := p.listen(); err != nil {
		return nil, err
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: p.opts.headerTimeout,
		IdleTimeout:       p.opts.idleTimeout,
		MaxHeaderBytes:    p.opts.maxHeader,
		ErrorLog:          log.New(io.Discard, "", 0),
		BaseContext:       func(net.Listener) context.Context { return p.ctx },
	}
	sem := make(chan struct{}, p.opts.maxConns)
	for _, ln := range []net.Listener{p.tcp, p.unix} {
		l := &limitListener{Listener: ln, sem: sem, done: p.ctx.Done()}
		p.tunnels.Go(func() { _ = p.srv.Serve(l) })
	}
	return p, nil
}

// listen opens the TCP listener on the loopback and the unix socket in a
// directory of its own that only this user can enter.
func (p *Proxy) listen() error {
	var err error
	if p.tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return fmt.Errorf("process: start the network proxy: %w", err)
	}
	// /tmp first: Bubblewrap gives every sandbox a /tmp of its own, so a
	// socket there is out of reach of other sandboxes (this one's is bound
	// in by the bridge). A unix socket's path is short (108 bytes).
	for _, base := range []string{"/tmp", os.TempDir()} {
		if p.dir, err = os.MkdirTemp(base, "agentsh-proxy-"); err != nil {
			continue
		}
		if len(p.SocketPath()) < 100 {
			break
		}
		os.Remove(p.dir)
		p.dir, err = "", fmt.Errorf("%s is too long for a unix socket", p.SocketPath())
	}
	if err == nil {
		p.unix, err = net.Listen("unix", p.SocketPath())
	}
	if err != nil {
		p.tcp.Close()
		if p.dir != "" {
			os.RemoveAll(p.dir)
		}
		return fmt.Errorf("process: start the network proxy: %w (set TMPDIR to a short, writable directory)", err)
	}
	return nil
}

// Addr is the proxy's TCP address on the loopback, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.tcp.Addr().String() }

// SocketPath is the proxy's unix socket, in a directory only this user
// can enter; it is removed by Close.
func (p *Proxy) SocketPath() string { return filepath.Join(p.dir, "proxy.sock") }

// SetAllowed replaces the allowed hosts for the CONNECT requests that
// arrive from now on; open tunnels stay open. A malformed entry is an
// error and changes nothing.
func (p *Proxy) SetAllowed(allow []string) error {
	rules, err := parseHostPatterns(allow)
	if err != nil {
		return err
	}
	p.allowed.Store(&rules)
	return nil
}

// Close stops the listeners and every open tunnel, waits for the
// requests being handled, and removes the unix socket's directory.
// Closing a closed Proxy does nothing.
func (p *Proxy) Close() error {
	if !p.tunnels.Close() {
		return nil
	}
	p.cancel()
	err := p.srv.Close()
	p.tunnels.Wait()
	if rerr := os.RemoveAll(p.dir); err == nil {
		err = rerr
	}
	return err
}

// serve handles one request: a CONNECT to an allowed host becomes a
// tunnel; everything else gets a one-line refusal.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if !p.tunnels.Add(1) {
		refuseRequest(w, http.StatusServiceUnavailable, "the sandbox's network proxy is shutting down")
		return
	}
	defer p.tunnels.Done()
	if r.Method != http.MethodConnect {
		w.Header().Set("Allow", http.MethodConnect)
		refuseRequest(w, http.StatusMethodNotAllowed, "only HTTPS through CONNECT is allowed, not %s %s; use an https:// URL", r.Method, r.RequestURI)
		return
	}
	target := r.RequestURI // as sent: net/http unescapes r.Host
	host, port, err := splitTarget(target)
	if err != nil {
		refuseRequest(w, http.StatusBadRequest, "%v", err)
		return
	}
	if ipLike(host) {
		refuseRequest(w, http.StatusForbidden, "CONNECT to an IP address (%s) is refused: the sandbox reaches its allowed hosts by name only", target)
		return
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if !netclass.ValidName(name) {
		refuseRequest(w, http.StatusBadRequest, "CONNECT target %q is not a host name and port", target)
		return
	}
	if !matchRules(*p.allowed.Load(), name, port) {
		entry := name
		if port != 443 {
			entry = net.JoinHostPort(name, strconv.Itoa(port))
		}
		refuseRequest(w, http.StatusForbidden, "%s:%d is not among the hosts this sandbox may reach; the person running agentsh can allow it with --allow-host %s or config(allow_hosts = [...])", name, port, entry)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), p.opts.dialTimeout)
	upstream, status, err := p.dial(ctx, name, port)
	cancel()
	if err != nil {
		refuseRequest(w, status, "%v", err)
		return
	}
	client, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		upstream.Close()
		refuseRequest(w, http.StatusInternalServerError, "cannot open a tunnel: %v", err)
		return
	}
	if !p.tunnels.Add(1, client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	go func() {
		defer p.tunnels.Done()
		defer p.tunnels.Remove(client, upstream)
		if err := p.open(client, upstream, brw.Reader); err != nil {
			return
		}
		splice(client, upstream, p.opts.idleTimeout)
	}()
}

// open answers a CONNECT on a hijacked connection and passes on what the
// client sent after its request (a TLS client may not wait for the
// answer).
func (p *Proxy) open(client, upstream net.Conn, early *bufio.Reader) error {
	_ = client.SetDeadline(time.Now().Add(p.opts.idleTimeout))
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return err
	}
	if n := early.Buffered(); n > 0 {
		b, _ := early.Peek(n)
		_ = upstream.SetWriteDeadline(time.Now().Add(p.opts.idleTimeout))
		if _, err := upstream.Write(b); err != nil {
			return err
		}
	}
	_ = client.SetDeadline(time.Time{})
	_ = upstream.SetWriteDeadline(time.Time{})
	return nil
}

// dial resolves name and connects to the first of its addresses that is
// public and answers. On failure it returns the HTTP status to answer
// with: 403 for a name that resolves only to refused addresses, 502 for
// one that cannot be resolved or reached.
func (p *Proxy) dial(ctx context.Context, name string, port int) (net.Conn, int, error) {
	if netclass.MetadataName(name) {
		return nil, http.StatusForbidden, fmt.Errorf("%s is a cloud metadata service, which sandboxed commands may not reach", name)
	}
	addrs, err := p.opts.lookup(ctx, name)
	if err != nil {
		return nil, http.StatusBadGateway, fmt.Errorf("cannot resolve %s: %v", name, unwrapDNSError(err))
	}
	var refused, failed error
	d := net.Dialer{KeepAlive: 30 * time.Second}
	for _, a := range addrs {
		a = a.Unmap()
		if class := p.refusedClass(a); class != "" {
			if refused == nil {
				refused = fmt.Errorf("%s resolves to %s, which is %s; the sandbox reaches public addresses only", name, a, class)
			}
			continue
		}
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, 0, nil
		}
		failed = fmt.Errorf("cannot connect to %s: %v", net.JoinHostPort(name, strconv.Itoa(port)), err)
		if ctx.Err() != nil {
			break
		}
	}
	switch {
	case failed != nil:
		return nil, http.StatusBadGateway, failed
	case refused != nil:
		return nil, http.StatusForbidden, refused
	}
	return nil, http.StatusBadGateway, fmt.Errorf("cannot resolve %s: it has no addresses", name)
}

// refusedClass is the class of an address the proxy does not connect to
// (see netclass.Classify), or "".
func (p *Proxy) refusedClass(a netip.Addr) string {
	class, _ := netclass.Classify(a)
	if class == "loopback" && p.opts.allowLoopback {
		return ""
	}
	return class
}

func unwrapDNSError(err error) error {
	var de *net.DNSError
	if errors.As(err, &de) {
		return errors.New(de.Err)
	}
	return err
}

// refuseRequest answers a request with status and a one-line reason, and closes
// the connection.
func refuseRequest(w http.ResponseWriter, status int, format string, args ...any) {
	msg := strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, fmt.Sprintf(format, args...))
	w.Header().Set("Connection", "close")
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "agentsh: "+msg, status)
}

// splitTarget splits a CONNECT request's target, "host:port".
func splitTarget(target string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(target)
	if err != nil || host == "" {
		return "", 0, fmt.Errorf("CONNECT target %q is not host:port", target)
	}
	if port, err = parsePort(p); err != nil {
		return "", 0, fmt.Errorf("CONNECT target %q: %v", target, err)
	}
	return host, port, nil
}

// parsePort parses a decimal port from 1 to 65535.
func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || s[0] == '+' || s[0] == '0' {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return n, nil
}

// hostRule is one allowed host: a name, or all the names below a domain,
// at one port.
type hostRule struct {
	name   string // lower case, no trailing dot; "" for a wildcard
	suffix string // ".example.com" for "*.example.com"
	port   int
}

func matchRules(rules []hostRule, name string, port int) bool {
	for _, r := range rules {
		if r.port == port && (r.name == name || r.suffix != "" && strings.HasSuffix(name, r.suffix)) {
			return true
		}
	}
	return false
}

func parseHostPatterns(allow []string) ([]hostRule, error) {
	rules := make([]hostRule, 0, len(allow))
	for _, h := range allow {
		r, err := parseHostPattern(h)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// checkHostPattern reports whether h is a valid entry of the sandbox's
// allowed hosts: "host" (port 443), "host:port", or "*.domain" with an
// optional port, for any name below domain but not domain itself. Names
// are case-insensitive and ASCII (an internationalized name in its xn--
// form); IP addresses and URLs are refused, with what to write instead.
func checkHostPattern(h string) error {
	_, err := parseHostPattern(h)
	return err
}

func parseHostPattern(raw string) (hostRule, error) {
	bad := func(format string, args ...any) (hostRule, error) {
		return hostRule{}, fmt.Errorf("allowed host %q %s", raw, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(raw)
	if s == "" {
		return bad("is empty; write a host name such as example.com, or example.com:8443 for a port other than 443")
	}
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return bad("is a URL; write the host only: %s", strings.ToLower(u.Host))
		}
		return bad("is a URL; write the host only, as in example.com")
	}
	if strings.ContainsAny(s, "/?#@ \t") {
		return bad("is not a host name; write the host only, as in example.com or example.com:8443")
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return bad("is an IP address (%s); the sandbox's proxy connects by host name only: allow the name the command connects to", a)
	}
	r := hostRule{port: 443}
	host := s
	if strings.Contains(s, ":") {
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return bad("is not host or host:port, as in example.com:8443")
		}
		if _, err := netip.ParseAddr(h); err == nil {
			return bad("is an IP address (%s); the sandbox's proxy connects by host name only: allow the name the command connects to", h)
		}
		if strings.HasPrefix(s, "[") {
			return bad("is not a valid host name; write letters, digits, hyphens and dots, as in example.com")
		}
		if r.port, err = parsePort(p); err != nil {
			return bad("has a bad port: %v; leave it out for 443", err)
		}
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			if a, err := idna.Lookup.ToASCII(host); err == nil {
				return bad("is not ASCII; write it as %s", a)
			}
			return bad("is not a valid host name")
		}
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		if !strings.Contains(rest, ".") {
			return bad("would allow every host under %q; list the hosts, or a domain below it as in *.example.com", rest)
		}
		host, r.suffix = rest, "."+rest
	} else if strings.Contains(host, "*") {
		return bad("has a wildcard that is not a whole first label; write *.example.com for the names below example.com")
	}
	if strings.Contains(host, "*") || !netclass.ValidName(host) {
		return bad("is not a valid host name; write letters, digits, hyphens and dots, as in example.com")
	}
	if ipLike(host) {
		return bad("looks like an IP address; the sandbox's proxy connects by host name only: allow the name the command connects to")
	}
	if r.suffix == "" {
		r.name = host
	}
	return r, nil
}

// ipLike reports whether host is an IP address, or would be taken for
// one by a resolver that reads the old numeric forms (2130706433,
// 0x7f.1): a last label of digits, or of 0x and hex digits.
func ipLike(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	h := strings.TrimSuffix(host, ".")
	last := h[strings.LastIndexByte(h, '.')+1:]
	if x, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		last = x
		for i := 0; i < len(x); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(x[i])) {
				return false
			}
		}
		return true
	}
	if last == "" {
		return false
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// proxyEnv adds to env the variables that send a command's HTTP(S)
// clients through the proxy at addr ("127.0.0.1:PORT"), upper and lower
// case, with NO_PROXY empty so that no host bypasses it; they win over
// what env had. Both backends call it: Landlock with the proxy's own
// address, Bubblewrap's bridge with the address it listens on inside the
// sandbox, which is the same.
func proxyEnv(env []string, addr string) []string {
	u := "http://" + addr
	out := append(env[:len(env):len(env)],
		"HTTPS_PROXY="+u, "https_proxy="+u,
		"HTTP_PROXY="+u, "http_proxy="+u,
		"ALL_PROXY="+u, "all_proxy="+u,
		"NO_PROXY=", "no_proxy=",
	)
	return dedupEnv(out)
}

// limitListener serves at most cap(sem) connections at a time, counted
// across the listeners that share sem: a connection accepted past that
// waits for one to close before it is served. (Taking the slot before
// accepting would let one listener's idle Accept hold the slot another's
// waiting client needs.)
type limitListener struct {
	net.Listener
	sem  chan struct{}
	done <-chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.sem <- struct{}{}:
		return &limitConn{Conn: c, sem: l.sem}, nil
	case <-l.done:
		c.Close()
		return nil, net.ErrClosed
	}
}

// limitConn gives its slot back when closed; it keeps CloseWrite, which
// a tunnel needs to pass on a half-close.
type limitConn struct {
	net.Conn
	sem  chan struct{}
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.sem })
	return err
}

func (c *limitConn) CloseWrite() error { return closeWrite(c.Conn) }

// splice copies between a and b both ways until both directions have
// ended, passing on a half-close (EOF one way closes the other side for
// writing), and then closes both. An error either way ends both. With
// idle > 0, the tunnel ends after that long without traffic either way.
func splice(a, b net.Conn, idle time.Duration) {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, a, idle, &last) })
	copyHalf(a, b, idle, &last)
	wg.Wait()
	a.Close()
	b.Close()
}

// copyHalf copies src to dst for splice.
func copyHalf(dst, src net.Conn, idle time.Duration, last *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		if idle > 0 {
			_ = src.SetReadDeadline(time.Now().Add(idle))
		}
		n, err := src.Read(buf)
		if n > 0 {
			last.Store(time.Now().UnixNano())
			if idle > 0 {
				_ = dst.SetWriteDeadline(time.Now().Add(idle))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
			last.Store(time.Now().UnixNano())
		}
		switch {
		case err == nil:
			continue
		case idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) && time.Since(time.Unix(0, last.Load())) < idle:
			continue // the other direction is busy
		case err == io.EOF:
			if closeWrite(dst) == nil {
				return
			}
		}
		break
	}
	src.Close()
	dst.Close()
}

// closeWrite shuts down c for writing, if it can.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
