package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over streamable HTTP. With a token, every
// request must carry "Authorization: Bearer TOKEN"; the comparison takes
// the same time whatever the token sent. An empty token lets every
// request in: use it only on a loopback address (see CheckListen).
func (s *Server) Handler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, nil)
	if token == "" {
		return h
	}
	return bearer(token, h)
}

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

// CheckListen returns an error when addr (host:port) is not a loopback
// address and there is no token: anyone who can reach the port could
// run the tools.
func CheckListen(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen: got %q, want HOST:PORT such as 127.0.0.1:8377", addr)
	}
	if hasToken || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("--listen %s is not a loopback address: pass --token-file FILE so that clients must send its token, or listen on 127.0.0.1", addr)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
