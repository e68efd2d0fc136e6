package tools

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/web"
)

func init() { toolBuilders["fetch"] = (*Extension).fetchTool }

type fetchArgs struct {
	URL       string `json:"url"`
	Format    string `json:"format"`
	MaxBytes  *int64 `json:"max_bytes"`
	TimeoutMS *int   `json:"timeout_ms"`
}

func (x *Extension) fetchTool() core.Tool {
	return tool("fetch",
		"Fetches a URL with HTTP(S) GET. HTML comes back as Markdown (format markdown, the default), plain text (text) or as it is (html); other text passes through. Private, link-local and cloud metadata addresses are refused.",
		`{"type":"object","properties":{`+
			`"url":{"type":"string","description":"http or https URL"},`+
			`"format":{"type":"string","enum":["markdown","text","html"]},`+
			`"max_bytes":{"type":"integer","minimum":1,"description":"most bytes of the body to read"},`+
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":120000,"description":"timeout in milliseconds"}},`+
			`"required":["url"],"additionalProperties":false}`,
		safe, true, x.fetch)
}

func (x *Extension) fetch(ctx context.Context, a fetchArgs) (any, error) {
	format, err := web.ParseFormat(a.Format)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	req := web.FetchRequest{URL: a.URL}
	if a.MaxBytes != nil {
		if *a.MaxBytes < 1 {
			return nil, fmt.Errorf("fetch: max_bytes %d must be 1 or more", *a.MaxBytes)
		}
		req.MaxBytes = *a.MaxBytes
	}
	if a.TimeoutMS != nil {
		req.Timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	}
	resp, err := x.fetcher.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.Status < 200 || resp.Status > 299 {
		snippet, _ := web.Convert(resp.Body, resp.ContentType, resp.URL, web.FormatText)
		return nil, fmt.Errorf("fetch %s: HTTP %d %s%s", resp.URL, resp.Status, http.StatusText(resp.Status), excerpt(snippet, 300))
	}
	text, err := web.Convert(resp.Body, resp.ContentType, resp.URL, format)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", resp.URL, err)
	}
	var b strings.Builder
	if resp.URL != a.URL {
		fmt.Fprintf(&b, "[fetched %s, redirected from %s]\n\n", resp.URL, a.URL)
	}
	b.WriteString(text)
	if resp.Truncated {
		fmt.Fprintf(&b, "\n[body cut at %d bytes; raise max_bytes to read more]\n", len(resp.Body))
	}
	// The data for scripts: where the body came from (after redirects),
	// the status, the content type, the converted text and whether the
	// body was cut at max_bytes.
	return core.DataOutput{Text: b.String(), Data: map[string]any{"url": resp.URL, "status": int64(resp.Status),
		"content_type": resp.ContentType, "text": text, "truncated": resp.Truncated}}, nil
}

// excerpt returns ": " and at most n characters of s on one line, or "".
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return ": " + s
}
