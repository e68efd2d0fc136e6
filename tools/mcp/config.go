package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerConfig says how to reach one MCP server: a command speaking MCP on
// its standard input and output, a streamable HTTP endpoint, or a
// transport of the caller's own. Exactly one of Command, URL and Transport
// is set.
type ServerConfig struct {
	// Name identifies the server: letters, digits, _ and -, at most
	// MaxServerNameLen characters. Its tools register as mcp__NAME__TOOL.
	Name string

	// Command is the program and its arguments (stdio transport). It is
	// started when the server is added and again after it exits.
	Command []string
	// Env is extra environment for the command ("KEY=value"), on top of
	// the current process's environment.
	Env []string
	// Dir is the command's working directory; empty means the current one.
	Dir string
	// Stderr, if set, receives the command's standard error as well. The
	// last lines are always kept for error messages.
	Stderr io.Writer

	// URL is a streamable HTTP endpoint.
	URL string
	// Headers are sent with every HTTP request (for example
	// Authorization).
	Headers map[string]string
	// HTTPClient makes the HTTP requests; nil means http.DefaultClient.
	HTTPClient *http.Client

	// Transport, if set, returns a fresh transport for every connection
	// (the first one and each reconnection), for servers reached some
	// other way, such as an in-process server over
	// mcp.NewInMemoryTransports.
	Transport func() (sdk.Transport, error)

	// ReadOnly names the server's tools that the person declares
	// read-only, by the server's name for them or by their local name
	// (mcp__NAME__TOOL): they are registered with core.Tool.ReadOnly (so
	// a model's call runs unasked and read-only policies let them
	// through), ConcurrencySafe and Idempotent. A server's own
	// annotations (readOnlyHint, idempotentHint, ...) are hints and set
	// none of these: without a declaration, a tool is not read-only.
	ReadOnly []string
}

// MaxServerNameLen is the longest server name: the tool names built from it
// must stay within 64 characters.
const MaxServerNameLen = 32

var serverNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// check reports what is wrong with the configuration, naming the server.
func (c *ServerConfig) check() error {
	if !serverNamePattern.MatchString(c.Name) {
		return fmt.Errorf("mcp: invalid server name %q: names must match [A-Za-z0-9_-]+", c.Name)
	}
	if len(c.Name) > MaxServerNameLen {
		return fmt.Errorf("mcp: server name %q is too long: at most %d characters", c.Name, MaxServerNameLen)
	}
	n := 0
	for _, set := range []bool{len(c.Command) > 0, c.URL != "", c.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("mcp server %s: set exactly one of Command, URL and Transport", c.Name)
	}
	if len(c.Command) > 0 && c.Command[0] == "" {
		return fmt.Errorf("mcp server %s: the command's program is empty", c.Name)
	}
	if len(c.Command) == 0 && (len(c.Env) > 0 || c.Dir != "" || c.Stderr != nil) {
		return fmt.Errorf("mcp server %s: Env, Dir and Stderr apply only to a Command", c.Name)
	}
	if c.URL == "" && (len(c.Headers) > 0 || c.HTTPClient != nil) {
		return fmt.Errorf("mcp server %s: Headers and HTTPClient apply only to a URL", c.Name)
	}
	for _, n := range c.ReadOnly {
		if n == "" {
			return fmt.Errorf("mcp server %s: ReadOnly holds an empty tool name", c.Name)
		}
	}
	for _, kv := range c.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("mcp server %s: environment entry %q is not KEY=value", c.Name, kv)
		}
	}
	return nil
}

// transport returns a new transport for one connection, and for a command
// the buffer that keeps the end of its standard error.
func (c *ServerConfig) transport() (sdk.Transport, *tail, error) {
	switch {
	case c.Transport != nil:
		t, err := c.Transport()
		if err == nil && t == nil {
			err = errors.New("the Transport function returned no transport")
		}
		return t, nil, err
	case c.URL != "":
		client := c.HTTPClient
		if client == nil {
			client = http.DefaultClient
		}
		if len(c.Headers) > 0 {
			cc := *client
			base := cc.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			cc.Transport = headerTransport{base: base, headers: c.Headers}
			client = &cc
		}
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: client}, nil, nil
	default:
		cmd := exec.Command(c.Command[0], c.Command[1:]...)
		cmd.Dir = c.Dir
		if len(c.Env) > 0 {
			cmd.Env = append(os.Environ(), c.Env...)
		}
		errTail := &tail{}
		cmd.Stderr = errTail
		if c.Stderr != nil {
			cmd.Stderr = io.MultiWriter(errTail, c.Stderr)
		}
		// A server's children may keep its stderr open after it exits;
		// do not wait for them forever.
		cmd.WaitDelay = waitDelay
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateDuration}, errTail, nil
	}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// tail keeps the last tailSize bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// note returns "; stderr: ..." with the last few lines, or "".
func (t *tail) note() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	b := bytes.TrimSpace(t.buf)
	t.mu.Unlock()
	if len(b) == 0 {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	s := strings.Join(lines, " | ")
	if len(s) > 1000 {
		s = "..." + strings.ToValidUTF8(s[len(s)-1000:], "")
	}
	return "; stderr: " + s
}
