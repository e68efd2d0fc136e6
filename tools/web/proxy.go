package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/internal/tunnels"
)

// DeniedHeader marks a response that a PolicyProxy made for a refused
// request (its value is not empty).
const DeniedHeader = "X-Agentsh-Policy"

// PolicyProxy is a local HTTP proxy that forwards only what a Policy
// allows. A browser sends all its traffic through one (see package
// tools/browser): plain http requests are forwarded by a reverse proxy
// whose dialer enforces the policy, https (and wss) go through CONNECT
// tunnels that are dialled the same way. Redirects are not followed here:
// the browser follows them with new requests, which are checked again. A
// refused request is answered 403 with DeniedHeader set. Its methods are
// safe for concurrent use.
type PolicyProxy struct {
	policy *compiled
	dialer *policyDialer
	ln     net.Listener
	srv    *http.Server
	rp     *httputil.ReverseProxy
	tr     *http.Transport

	mu      sync.Mutex
	denials []denial // the first few refusals, for error messages

	// tunnels counts the Serve loop and the tunnels' goroutines, and
	// ends the tunnels on Close.
	tunnels tunnels.Set
}

// denial is one refused request: key is its "host:port", as hostPortKey
// makes it.
type denial struct {
	target, key string
	err         error
}

const maxDenials = 64

var discardLog = log.New(io.Discard, "", 0)

// NewPolicyProxy starts a PolicyProxy for p on a loopback port, which
// resolves names with r (nil: the system's resolver). A malformed p is an
// error (see Policy.Validate). Close stops it.
func NewPolicyProxy(p Policy, r Resolver) (*PolicyProxy, error) {
	c, err := p.compile()
	if err != nil {
		return nil, err
	}
	return newPolicyProxy(c, r)
}

func newPolicyProxy(c *compiled, lookup Resolver) (*PolicyProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("policy proxy: %w", err)
	}
	p := &PolicyProxy{
		policy: c,
		dialer: newPolicyDialer(c, lookup),
		ln:     ln,
	}
	p.tr = &http.Transport{
		Proxy:                 nil,
		DialContext:           p.dialer.DialContext,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:      func(*httputil.ProxyRequest) {}, // the request URL is already absolute
		Transport:    p.tr,
		ErrorHandler: p.forwardError,
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          discardLog,
	}
	p.tunnels.Go(func() { p.srv.Serve(ln) })
	return p, nil
}

// URL is the proxy's address as a browser's proxy setting wants it.
func (p *PolicyProxy) URL() string { return "http://" + p.ln.Addr().String() }

// DenialFor returns the refusal of rawURL, else the last refusal of a
// request to its host and port (an https request is refused as a CONNECT to
// "host:port"), or nil.
func (p *PolicyProxy) DenialFor(rawURL string) error {
	key := urlKey(rawURL)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.denials {
		if d.target == rawURL {
			return d.err
		}
	}
	for i := len(p.denials) - 1; i >= 0; i-- {
		if key != "" && p.denials[i].key == key {
			return p.denials[i].err
		}
	}
	return nil
}

// Denials returns the refusals so far (at most maxDenials).
func (p *PolicyProxy) Denials() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := make([]error, len(p.denials))
	for i, d := range p.denials {
		errs[i] = d.err
	}
	return errs
}

// urlKey returns the "host:port" of a URL, with the scheme's default port,
// or "".
func urlKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[strings.ToLower(u.Scheme)]
	}
	return hostPortKey(u.Hostname(), port)
}

func hostPortKey(host, port string) string {
	return net.JoinHostPort(strings.TrimSuffix(strings.ToLower(host), "."), port)
}

// deny answers a refused request. target is its URL, or "host:port" for a
// CONNECT.
func (p *PolicyProxy) deny(w http.ResponseWriter, target string, err error) {
	err = fmt.Errorf("%s: %w", target, err)
	key := urlKey(target)
	if key == "" {
		if host, port, serr := net.SplitHostPort(target); serr == nil {
			key = hostPortKey(host, port)
		}
	}
	p.mu.Lock()
	if len(p.denials) < maxDenials {
		p.denials = append(p.denials, denial{target, key, err})
	}
	p.mu.Unlock()
	w.Header().Set(DeniedHeader, "denied")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, "agentsh: "+err.Error()+"\n")
}

func (p *PolicyProxy) forwardError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrDenied) {
		p.deny(w, r.URL.String(), err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	io.WriteString(w, "agentsh proxy: "+r.URL.String()+": "+err.Error()+"\n")
}

func (p *PolicyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "agentsh policy proxy: not a proxy request", http.StatusBadRequest)
		return
	}
	if _, err := p.policy.checkURL(r.URL.String()); err != nil {
		p.deny(w, r.URL.String(), err)
		return
	}
	p.rp.ServeHTTP(w, r)
}

func (p *PolicyProxy) connect(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		http.Error(w, "agentsh policy proxy: bad CONNECT target "+target, http.StatusBadRequest)
		return
	}
	if err := p.policy.checkHost(host); err != nil {
		p.deny(w, target, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	upstream, err := p.dialer.DialContext(ctx, "tcp", target)
	cancel()
	if err != nil {
		if errors.Is(err, ErrDenied) {
			p.deny(w, target, err)
			return
		}
		http.Error(w, "agentsh policy proxy: "+target+": "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "agentsh policy proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, brw, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if !p.tunnels.Add(0, client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		p.tunnels.Remove(client, upstream)
		return
	}
	var once sync.Once
	done := func() { once.Do(func() { p.tunnels.Remove(client, upstream) }) }
	p.tunnels.Go(func() {
		defer done()
		io.Copy(upstream, brw) // brw holds any bytes read past the CONNECT request
	})
	p.tunnels.Go(func() {
		defer done()
		io.Copy(client, upstream)
	})
}

// Close stops the proxy and every connection through it, and waits for its
// goroutines.
func (p *PolicyProxy) Close() error {
	if !p.tunnels.Close() {
		return nil
	}
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	p.tunnels.Wait()
	return err
}
