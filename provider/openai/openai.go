package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// DefaultBaseURL is OpenAI's API, used when neither Config.BaseURL nor
// OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultOllamaURL is where Ollama listens unless OLLAMA_HOST says
// otherwise.
const DefaultOllamaURL = "http://localhost:11434/v1"

// Config configures a Provider. The zero value of every field but Model
// is a sensible default.
type Config struct {
	// Model is the model to ask, such as "gpt-4o".
	Model string
	// BaseURL is the API root, to which "/chat/completions" is appended.
	// Empty means OPENAI_BASE_URL, or DefaultBaseURL when that is unset.
	BaseURL string
	// APIKey is sent as a bearer token. Empty means OPENAI_API_KEY; it may
	// stay empty for any server but OpenAI's.
	APIKey string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Retry says how 429 and 5xx answers and network errors are retried.
	Retry wire.Retry
	// Limits bound each response: idle time, total time and size; zero
	// fields mean provider.DefaultIdleTimeout, DefaultMaxDuration and
	// DefaultMaxBytes.
	Limits provider.Limits
	// Label replaces Name(); empty means "openai:MODEL".
	Label string
}

// Provider is a Chat Completions client. It is safe for concurrent use.
type Provider struct {
	kind    string // "openai" or "ollama": Error.Provider and the Name prefix
	model   string
	baseURL string
	apiKey  string
	http    wire.Client
	label   string
}

func init() {
	provider.Register("openai", func(model string) (provider.Provider, error) { return New(Config{Model: model}) })
	provider.Register("ollama", func(model string) (provider.Provider, error) { return Ollama(model) })
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Limited  = (*Provider)(nil)
)

// New returns a Provider for cfg. Without a key it fails with a
// provider.ErrAuth error when the server is OpenAI's.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	return newProvider("openai", cfg)
}

// Ollama returns a Provider for a model served by a local Ollama, at
// DefaultOllamaURL or the address in OLLAMA_HOST ("host:port", or a URL
// such as "http://host:port"). No key is sent.
func Ollama(model string) (*Provider, error) {
	return newProvider("ollama", Config{Model: model, BaseURL: ollamaBaseURL(os.Getenv("OLLAMA_HOST"))})
}

func newProvider(kind string, cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("%s: no model given", kind)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q: want http:// or https:// and a host", kind, cfg.BaseURL)
	}
	if cfg.APIKey == "" && strings.EqualFold(u.Hostname(), "api.openai.com") {
		return nil, &provider.Error{
			Kind:     provider.ErrAuth,
			Provider: kind,
			Message:  "no API key",
			Hint:     hint(kind, "", provider.ErrAuth),
		}
	}
	if err := cfg.Limits.Check(); err != nil {
		return nil, fmt.Errorf("%s: limits: %v", kind, err)
	}
	return &Provider{
		kind:    kind,
		model:   cfg.Model,
		baseURL: base,
		apiKey:  cfg.APIKey,
		http:    wire.Client{HTTP: cfg.HTTPClient, Retry: cfg.Retry, Limits: cfg.Limits, Provider: kind},
		label:   cfg.Label,
	}, nil
}

// Limits returns the limits of each response, defaults filled in.
func (p *Provider) Limits() provider.Limits { return p.http.Limits.OrDefaults() }

// WithLimits returns a copy of p whose responses are bounded by l.
func (p *Provider) WithLimits(l provider.Limits) (provider.Provider, error) {
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("%s: limits: %v", p.kind, err)
	}
	q := *p
	q.http.Limits = l
	return &q, nil
}

// ollamaBaseURL turns OLLAMA_HOST into the root of Ollama's
// OpenAI-compatible API. Like Ollama's own client it accepts "host",
// "host:port", ":port" and URLs with a scheme and a path; an unspecified
// address such as 0.0.0.0 (what a server listens on) means this machine.
func ollamaBaseURL(env string) string {
	env = strings.TrimSpace(env)
	if env == "" {
		return DefaultOllamaURL
	}
	scheme, hostport, ok := strings.Cut(env, "://")
	defaultPort := "11434"
	switch {
	case !ok:
		scheme, hostport = "http", env
	case scheme == "https":
		defaultPort = "443"
	case scheme == "http":
		defaultPort = "80"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		port = defaultPort
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	return u.String() + "/v1"
}

// Name returns the label, or "openai:MODEL" ("ollama:MODEL" for Ollama).
func (p *Provider) Name() string {
	if p.label != "" {
		return p.label
	}
	return p.kind + ":" + p.model
}

// Complete sends req to {BaseURL}/chat/completions and returns the answer.
// With a non-nil stream it asks for a streamed answer and passes text to
// stream as it arrives; the Response still holds all of it.
func (p *Provider) Complete(ctx context.Context, req provider.Request, stream func(text string)) (provider.Response, error) {
	if err := ctx.Err(); err != nil {
		return provider.Response{}, err
	}
	body, err := p.encodeRequest(req, stream != nil)
	if err != nil {
		return provider.Response{}, err
	}
	endpoint := p.baseURL + "/chat/completions"
	resp, err := p.http.Do(ctx, func() (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		if stream != nil {
			r.Header.Set("Accept", "text/event-stream")
		} else {
			r.Header.Set("Accept", "application/json")
		}
		if p.apiKey != "" {
			r.Header.Set("Authorization", "Bearer "+p.apiKey)
		}
		return r, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		return provider.Response{}, p.networkError("POST "+endpoint, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		text := wire.ReadBody(resp)
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		return provider.Response{}, p.statusError(resp.StatusCode, []byte(text))
	}
	defer resp.Body.Close()
	if stream != nil && isEventStream(resp.Header) {
		out, err := p.readStream(resp.Body, resp.StatusCode, stream)
		if err != nil && ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		if err != nil {
			err = p.networkError("reading the answer from "+endpoint, err)
		}
		return out, err
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		return provider.Response{}, p.networkError("reading the answer from "+endpoint, err)
	}
	out, err := p.decodeResponse(data, resp.StatusCode)
	if err != nil {
		return provider.Response{}, err
	}
	// A server that ignored "stream": true answered all at once.
	if stream != nil && out.Content != "" {
		stream(out.Content)
	}
	return out, nil
}

func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/event-stream")
}

// networkError wraps a failure to reach the server, or to read from it.
// A broken limit is already a *provider.Error and stays as it is.
func (p *Provider) networkError(what string, err error) error {
	if provider.KindOf(err) != "" {
		return err
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	return &provider.Error{
		Kind:     provider.ErrServer,
		Provider: p.kind,
		Message:  fmt.Sprintf("%s: %v", what, cause),
		Err:      err,
	}
}
