package web

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

const samplePage = `<!DOCTYPE html>
<html>
<head>
  <title>Sample</title>
  <style>body { color: red }</style>
  <script>var secret = "do not show";</script>
</head>
<body>
  <h1>Main   title</h1>
  <p>Intro with <a href="/abs/path">an absolute-path link</a>, <a href="rel/page.html?q=1">a relative one</a>
  and <a href="https://other.example/x">an external one</a>. Some <em>emphasis</em> and <strong>strength</strong>.</p>
  <h2>List</h2>
  <ul><li>one</li><li>two <code>x := 1</code></li></ul>
  <ol><li>first</li><li>second</li></ol>
  <h3>Code</h3>
  <pre><code class="language-go">func main() {
	fmt.Println("hi")
}
</code></pre>
  <img src="img/logo.png" alt="Logo">
  <table><tr><th>K</th><th>V</th></tr><tr><td>a</td><td>1</td></tr></table>
  <noscript>enable js</noscript>
  <script>document.write("nope")</script>
  <style>.x{}</style>
</body>
</html>`

func TestToMarkdown(t *testing.T) {
	md, err := ToMarkdown([]byte(samplePage), "https://example.com/docs/guide/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Main title\n",
		"[an absolute-path link](https://example.com/abs/path)",
		"[a relative one](https://example.com/docs/guide/rel/page.html?q=1)",
		"[an external one](https://other.example/x)",
		"*emphasis*",
		"**strength**",
		"## List\n",
		"- one\n- two `x := 1`",
		"1. first\n2. second",
		"### Code\n",
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
		"![Logo](https://example.com/docs/guide/img/logo.png)",
		"| K | V |",
		"| a | 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"secret", "color: red", "nope", "enable js", ".x{}", "Sample"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown contains %q:\n%s", bad, md)
		}
	}
}

func TestToMarkdownBaseAndNoURL(t *testing.T) {
	page := `<html><head><base href="/v2/"></head><body><a href="a.html">A</a></body></html>`
	md, err := ToMarkdown([]byte(page), "https://example.com/v1/x")
	if err != nil || md != "[A](https://example.com/v2/a.html)" {
		t.Errorf("with <base>: got %q, %v", md, err)
	}
	md, err = ToMarkdown([]byte(page), "")
	if err != nil || md != "[A](a.html)" {
		t.Errorf("without a page URL: got %q, %v", md, err)
	}
	md, err = ToMarkdown(nil, "")
	if err != nil || md != "" {
		t.Errorf("empty: got %q, %v", md, err)
	}
}

func TestToMarkdownDeterministic(t *testing.T) {
	first, err := ToMarkdown([]byte(samplePage), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				md, err := ToMarkdown([]byte(samplePage), "https://example.com/")
				if err != nil || md != first {
					t.Errorf("run differs: %v\n%s\nvs\n%s", err, md, first)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestToText(t *testing.T) {
	text, err := ToText([]byte(samplePage))
	if err != nil {
		t.Fatal(err)
	}
	want := "Main title\n\n" +
		"Intro with an absolute-path link, a relative one and an external one. Some emphasis and strength.\n\n" +
		"List\n\n" +
		"- one\n- two x := 1\n\n" +
		"1. first\n2. second\n\n" +
		"Code\n\n" +
		"func main() {\n\tfmt.Println(\"hi\")\n}\n\n" +
		"K\tV\na\t1"
	if text != want {
		t.Errorf("ToText:\n got %q\nwant %q", text, want)
	}
	again, _ := ToText([]byte(samplePage))
	if again != text {
		t.Error("ToText is not deterministic")
	}
	text, _ = ToText([]byte(`<p>a<br>b<br><br>c</p><div hidden>h</div><span>x</span> <span>y</span>`))
	if want := "a\nb\n\nc\n\nx y"; text != want {
		t.Errorf("breaks: got %q, want %q", text, want)
	}
}

func TestConvert(t *testing.T) {
	html := []byte(`<html><body><h1>T</h1><p>x <a href="/y">y</a></p></body></html>`)
	tests := []struct {
		body        []byte
		contentType string
		format      Format
		want        string
		wantErr     string
	}{
		{html, "text/html; charset=utf-8", FormatMarkdown, "# T\n\nx [y](https://e.example/y)", ""},
		{html, "text/html", "", "# T\n\nx [y](https://e.example/y)", ""},
		{html, "TEXT/HTML", FormatText, "T\n\nx y", ""},
		{html, "text/html", FormatHTML, string(html), ""},
		{html, "application/xhtml+xml", FormatText, "T\n\nx y", ""},
		{html, "", FormatMarkdown, "# T\n\nx [y](https://e.example/y)", ""}, // sniffed
		{[]byte("a <b>\n"), "text/plain", FormatMarkdown, "a <b>\n", ""},
		{[]byte("# md\n"), "text/markdown; charset=utf-8", FormatText, "# md\n", ""},
		{[]byte(`{"a":1}`), "application/json", FormatMarkdown, `{"a":1}`, ""},
		{[]byte(`{"a":1}`), "application/vnd.api+json", FormatText, `{"a":1}`, ""},
		{[]byte(`<x/>`), "application/rss+xml", FormatMarkdown, `<x/>`, ""},
		{[]byte("k: v\n"), "application/yaml", FormatMarkdown, "k: v\n", ""},
		{[]byte("caf\xe9 \x80"), "text/plain; charset=ISO-8859-1", FormatMarkdown, "café €", ""},
		{[]byte("<p>caf\xe9</p>"), "text/html", FormatText, "café", ""}, // invalid UTF-8, no charset
		{[]byte(`<meta charset="windows-1252"><p>caf` + "\xe9</p>"), "text/html", FormatText, "café", ""},
		{[]byte("\xef\xbb\xbfbom"), "text/plain", FormatText, "bom", ""},
		{[]byte("\x89PNG\r\n\x1a\n...."), "image/png", FormatMarkdown, "", "content type image/png (12 bytes) is not HTML, text or JSON"},
		{[]byte("%PDF-1.4"), "", FormatMarkdown, "", "content type application/pdf (8 bytes) is not HTML, text or JSON"},
		{[]byte("x"), "application/octet-stream", FormatHTML, "", "application/octet-stream"},
		{html, "text/html", "pdf", "", `format "pdf" is not one of markdown, text, html`},
	}
	for _, tt := range tests {
		got, err := Convert(tt.body, tt.contentType, "https://e.example/page", tt.format)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Convert(%q, %q, %q): got %q, %v; want error %q", tt.body, tt.contentType, tt.format, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Convert(%q, %q, %q):\n got %q, %v\nwant %q", tt.body, tt.contentType, tt.format, got, err, tt.want)
		}
	}
	_, err := Convert([]byte{0, 1, 2}, "image/gif", "", FormatMarkdown)
	if !errors.Is(err, ErrNotText) {
		t.Errorf("binary: got %v, want ErrNotText", err)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatMarkdown, "markdown": FormatMarkdown, "text": FormatText, "html": FormatHTML} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("md"); err == nil {
		t.Error(`ParseFormat("md"): no error`)
	}
}
