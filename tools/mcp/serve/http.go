package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over streamable HTTP. With a token, every
// request must carry "Authorization: Bearer TOKEN"; the comparison takes
// the same time whatever the token sent. An empty token lets every
// request in: use it only on a loopback address (see CheckListen). A
// request body longer than MaxMessageBytes is refused (413). Serve it
// with HTTPServer, which bounds how long a client may take.
func (s *Server) Handler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: MaxMessageBytes})
	if token == "" {
		return h
	}
	return bearer(token, h)
}

// httpLimits are HTTPServer's bounds; tests shorten them.
var httpLimits = struct {
	header, body, write, idle time.Duration
	headerBytes               int
}{header: 10 * time.Second, body: time.Minute, write: time.Minute, idle: 2 * time.Minute, headerBytes: 64 << 10}

// HTTPServer returns an http.Server for h (from Handler) that no client
// can hold open by sending slowly or not at all, before or after the
// token check: the request line and headers must arrive within 10
// seconds and fit in 64 KiB, a request body must arrive within a minute,
// each write to the client must complete within a minute (a client that
// stops reading loses its connection), and a connection idle between
// requests for two minutes is closed. None of these is a bound on a
// request as a whole, so a long-lived stream of server messages (the GET
// of streamable HTTP, or a call that waits for an elicitation) stays open
// for as long as the client reads it, unlike with http.Server's
// ReadTimeout and WriteTimeout.
func HTTPServer(h http.Handler) *http.Server {
	lim := httpLimits
	return &http.Server{
		Handler:           deadlines(h, lim.body, lim.write),
		ReadHeaderTimeout: lim.header,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    lim.headerBytes,
	}
}

// deadlines gives each request's body the read deadline body, lifted once
// the whole body is read, and the response the write deadline write,
// renewed by every write and flush and when h returns (for what the
// server still writes then). A deadline that passed stays: what is left
// of the request fails at once, and the connection closes.
func deadlines(h http.Handler, body, write time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(time.Now().Add(body))
			r.Body = &readBody{ReadCloser: r.Body, done: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		tw := &timedWriter{ResponseWriter: w, rc: rc, d: write}
		tw.renew()
		defer tw.renew()
		h.ServeHTTP(tw, r)
	})
}

// readBody lifts the read deadline when the body ends, so that it does
// not end the connection while the response streams.
type readBody struct {
	io.ReadCloser
	done func()
	once sync.Once
}

func (b *readBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.done)
	}
	return n, err
}

// timedWriter gives every write, and every flush, its own deadline.
type timedWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *timedWriter) renew() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *timedWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController.Flush calls.
func (w *timedWriter) FlushError() error {
	w.renew()
	return w.rc.Flush()
}

func (w *timedWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.ResponseController the connection's writer.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var _ http.Flusher = (*timedWriter)(nil)

func bearer(token string, next http.Handler) http.Handler {
	// Comparing digests keeps the length of the token secret too.
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentsh"`)
			http.Error(w, "unauthorized: send the token of --token-file as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ErrNotLoopback is the error of CheckListen for an address that is not a
// loopback address, without a token.
var ErrNotLoopback = errors.New("not a loopback address, and no token guards it")

// CheckListen returns an error when addr (host:port) is not a loopback
// address and there is no token: anyone who can reach the port could
// run the tools.
func CheckListen(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address: got %q, want HOST:PORT such as 127.0.0.1:8377", addr)
	}
	if hasToken || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("listen address %s: %w; give Server.Handler a token that clients must send, or listen on 127.0.0.1", addr, ErrNotLoopback)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
