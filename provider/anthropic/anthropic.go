// Package anthropic adapts Anthropic's Messages API to provider.Provider.
// Importing it registers the spec prefix anthropic: (New, with the key
// from ANTHROPIC_API_KEY) with provider.Register.
//
// It speaks HTTP, JSON and server-sent events directly: POST
// {BaseURL}/v1/messages with the x-api-key and anthropic-version headers.
// A provider.Request is translated as follows:
//
//   - System, and any messages with the system role, become the top-level
//     "system" array of text blocks.
//   - User messages become user turns of content blocks (text, then any
//     image Blocks). Images go as the type their bytes show (JPEG, PNG,
//     GIF or WebP, the types the API accepts); any other image, such as an
//     SVG, is replaced by a text block saying what was left out, so that
//     one block cannot make the API refuse the request.
//   - Assistant messages become assistant turns of [text?, tool_use...]
//     blocks. A tool call's Args are sent as its input when they are a
//     JSON object, and as {} otherwise (the API accepts only objects).
//   - Tool messages become tool_result blocks (text, then image Blocks;
//     is_error when Message.IsError). Consecutive messages that map to the
//     same role are merged into one turn, so all the results of one turn,
//     and a user message that follows them, travel as one user message, as
//     the API's strict alternation requires.
//   - Tools become {name, description, input_schema}; a tool without
//     Parameters gets an empty object schema.
//
// Answers: text blocks are joined into Content and tool_use blocks become
// ToolCalls, in order; a tool_use whose input is not JSON keeps it in
// ToolCall.InvalidArgs (the agent answers such a call with an
// invalid_arguments result the model can correct). When the stop reason
// says the answer was cut off (max_tokens, model_context_window_exceeded)
// and its last block is a tool_use, that call was being written: it goes
// to Response.Incomplete, not to ToolCalls, so it is never run, even when
// its input happens to parse.
//
// Prompt caching: Request.SystemCache, ToolDef.Cache and Message.Cache
// become cache_control {"type":"ephemeral"} breakpoints: on the last
// flagged tool definition (one breakpoint covers every tool before it),
// on the last system block, and on the last content block of each flagged
// message. The API accepts at most four breakpoints per request; when more
// are flagged, only the last four in request order (tools, then system,
// then messages) are sent, since later breakpoints cover longer prefixes.
//
// Errors are *provider.Error values with Provider "anthropic"; 429, 5xx
// and 529 (overloaded) answers are retried as Config.Retry says, honouring
// Retry-After.
//
// Every response is bounded by Config.Limits (provider.Limits): a server
// that sends nothing for IdleTimeout (10 minutes by default, before the
// headers or between two reads; the API's pings count) or whose response
// takes longer than MaxDuration (1 hour) fails with provider.ErrTimeout,
// and a response larger than MaxBytes (64 MiB, a whole stream included)
// with provider.ErrTooLarge. Neither is retried.
package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// DefaultBaseURL is where requests go when neither Config.BaseURL nor
// ANTHROPIC_BASE_URL says otherwise.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the max_tokens sent when neither the Request nor the
// Config sets one; the API requires the field.
const DefaultMaxTokens = 4096

// apiVersion is the anthropic-version header every request carries.
const apiVersion = "2023-06-01"

const name = "anthropic"

func init() {
	provider.Register(name, func(model string) (provider.Provider, error) { return New(Config{Model: model}) })
}

// Config configures a Provider. The zero value of every field but Model
// means the default.
type Config struct {
	// Model is the model name, such as "claude-sonnet-4-5". Required; a
	// Request's own Model, when set, takes precedence.
	Model string
	// BaseURL defaults to $ANTHROPIC_BASE_URL, else DefaultBaseURL.
	BaseURL string
	// APIKey defaults to $ANTHROPIC_API_KEY; New fails without one.
	APIKey string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
	// Retry says how 429, 5xx and 529 answers are retried.
	Retry wire.Retry
	// Limits bound each response: idle time, total time and size; zero
	// fields mean provider.DefaultIdleTimeout, DefaultMaxDuration and
	// DefaultMaxBytes.
	Limits provider.Limits
	// MaxTokens is used when a Request leaves MaxTokens at 0; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Label replaces Name()'s "anthropic:MODEL" when set.
	Label string
}

// Provider sends requests to the Messages API. It is safe for concurrent
// use: it holds only its configuration, which it never changes.
type Provider struct {
	cfg Config
	url string
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Limited  = (*Provider)(nil)
)

// New returns a Provider for cfg. It fails when no model is named, and
// with a provider.ErrAuth error when there is no API key.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic.New: no model given")
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("ANTHROPIC_API_KEY")
	}
	if cfg.APIKey == "" {
		return nil, &provider.Error{
			Kind:     provider.ErrAuth,
			Provider: name,
			Message:  "no API key",
			Hint:     hint(provider.ErrAuth),
		}
	}
	if err := cfg.Limits.Check(); err != nil {
		return nil, fmt.Errorf("anthropic.New: limits: %v", err)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = os.Getenv("ANTHROPIC_BASE_URL")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Provider{cfg: cfg, url: cfg.BaseURL + "/v1/messages"}, nil
}

// Limits returns the limits of each response, defaults filled in.
func (p *Provider) Limits() provider.Limits { return p.cfg.Limits.OrDefaults() }

// WithLimits returns a copy of p whose responses are bounded by l.
func (p *Provider) WithLimits(l provider.Limits) (provider.Provider, error) {
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("anthropic: limits: %v", err)
	}
	q := *p
	q.cfg.Limits = l
	return &q, nil
}

// Name returns Config.Label, or "anthropic:MODEL".
func (p *Provider) Name() string {
	if p.cfg.Label != "" {
		return p.cfg.Label
	}
	return name + ":" + p.cfg.Model
}

// Complete sends req to the Messages API. When stream is non-nil the
// answer is streamed and each piece of text is passed to stream as it
// arrives, on the calling goroutine; the Response is the same as without
// streaming. When ctx ends, Complete returns ctx's error promptly.
func (p *Provider) Complete(ctx context.Context, req provider.Request, stream func(text string)) (provider.Response, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.cfg.MaxTokens
	}
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body, err := encodeRequest(model, maxTokens, req, stream != nil)
	if err != nil {
		return provider.Response{}, &provider.Error{Kind: provider.ErrBadRequest, Provider: name, Message: err.Error(), Err: err}
	}
	client := wire.Client{HTTP: p.cfg.HTTPClient, Retry: p.cfg.Retry, Limits: p.cfg.Limits, Provider: name}
	resp, err := client.Do(ctx, func() (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("x-api-key", p.cfg.APIKey)
		r.Header.Set("anthropic-version", apiVersion)
		r.Header.Set("content-type", "application/json")
		if stream != nil {
			r.Header.Set("accept", "text/event-stream")
		}
		return r, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		if provider.KindOf(err) != "" {
			return provider.Response{}, err // a broken limit
		}
		return provider.Response{}, &provider.Error{Kind: provider.ErrServer, Provider: name, Message: "request failed: " + err.Error(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return provider.Response{}, errorFromBody(resp.StatusCode, wire.ReadBody(resp))
	}
	var out provider.Response
	if stream != nil && isEventStream(resp.Header.Get("Content-Type")) {
		out, err = readStream(resp.Body, stream)
	} else {
		out, err = readMessage(resp.Body)
		if err == nil && stream != nil && out.Content != "" {
			stream(out.Content) // a server that would not stream
		}
	}
	if err != nil && ctx.Err() != nil {
		return provider.Response{}, ctx.Err()
	}
	return out, err
}

func isEventStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}
