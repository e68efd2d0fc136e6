package web

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Format is how the fetch tool shows a document.
type Format string

// The formats. They differ for HTML only: other text (text/*, JSON, XML,
// JavaScript, ...) is shown as it is in every format.
const (
	// FormatMarkdown converts HTML to Markdown (ToMarkdown). The default.
	FormatMarkdown Format = "markdown"
	// FormatText converts HTML to plain text (ToText).
	FormatText Format = "text"
	// FormatHTML shows HTML as it is.
	FormatHTML Format = "html"
)

// Formats lists the formats, the default first.
var Formats = []Format{FormatMarkdown, FormatText, FormatHTML}

// ParseFormat returns the Format named s; "" is FormatMarkdown.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatMarkdown, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("format %q is not one of markdown, text, html", s)
}

// ErrNotText is matched (with errors.Is) by Convert's error for a body that
// is not text, such as an image, a PDF or an archive.
var ErrNotText = errors.New("content is not text")

// Convert renders a fetched body as text in format f, by content type:
// HTML (text/html, application/xhtml+xml) is converted as f says; other
// text (text/*, JSON, XML, JavaScript, YAML, ...) is returned as it is;
// anything else is refused with an error that names the content type and
// wraps ErrNotText. An empty contentType is sniffed from the body. The body
// is decoded to UTF-8 from every encoding of the WHATWG encoding standard
// (Shift_JIS, EUC-KR, GBK, KOI8-R, UTF-16, ...): a byte order mark comes
// first, then the charset of the content type, then for HTML a <meta>
// declaration in the first 1024 bytes; with none of them, or a label the
// standard does not know, the body is UTF-8 if it is valid UTF-8 and
// windows-1252 if not. Bytes invalid in the encoding become U+FFFD.
// pageURL resolves relative links in Markdown.
func Convert(body []byte, contentType, pageURL string, f Format) (string, error) {
	if f == "" {
		f = FormatMarkdown
	}
	if _, err := ParseFormat(string(f)); err != nil {
		return "", err
	}
	if contentType == "" {
		// Only the media type: the sniffer's charset is a guess, and the
		// body's own declarations and a byte order mark decide.
		contentType, _, _ = strings.Cut(http.DetectContentType(body), ";")
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// A malformed header: keep the media type, drop the parameters.
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
		params = nil
	}
	kind := classifyMedia(mt)
	if kind == mediaBinary {
		return "", fmt.Errorf("content type %s (%d bytes) is not HTML, text or JSON: %w", mt, len(body), ErrNotText)
	}
	text := decodeText(body, params["charset"], kind == mediaHTML)
	if kind == mediaText || f == FormatHTML {
		return text, nil
	}
	if f == FormatText {
		return ToText([]byte(text))
	}
	return ToMarkdown([]byte(text), pageURL)
}

type mediaKind int

const (
	mediaBinary mediaKind = iota
	mediaText
	mediaHTML
)

var textMedia = map[string]bool{
	"application/json":         true,
	"application/xml":          true,
	"application/javascript":   true,
	"application/x-javascript": true,
	"application/ecmascript":   true,
	"application/x-ndjson":     true,
	"application/yaml":         true,
	"application/x-yaml":       true,
	"application/toml":         true,
	"application/x-sh":         true,
	"application/sql":          true,
	"application/graphql":      true,
	"application/x-tex":        true,
	"application/x-httpd-php":  true,
	"image/svg+xml":            true,
}

func classifyMedia(mt string) mediaKind {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return mediaHTML
	case strings.HasPrefix(mt, "text/"), textMedia[mt],
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return mediaText
	}
	return mediaBinary
}

// decodeText returns body as UTF-8 text. Its encoding is, first to
// apply: a byte order mark (UTF-8, UTF-16LE, UTF-16BE); label, the
// content type's charset; for HTML, a <meta charset> or <meta http-equiv>
// in the first 1024 bytes (x/net/html/charset's prescan, as the WHATWG
// HTML standard has it). Labels are the WHATWG encoding standard's, so ASCII
// and Latin-1 mean windows-1252; a label it does not know counts as none.
// With no encoding found, the body is UTF-8 if all of it is valid UTF-8,
// else windows-1252. Bytes invalid in the encoding become U+FFFD.
func decodeText(body []byte, label string, isHTML bool) string {
	e, _ := charset.Lookup(label)
	if e == nil && isHTML {
		found, _, certain := charset.DetermineEncoding(body, "")
		// DetermineEncoding's own guesses are these two values, unwrapped;
		// an encoding it found declared comes from charset.Lookup. The
		// guess is made below from the whole body.
		if certain || found != encoding.Nop && found != charmap.Windows1252 {
			e = found
		}
	}
	if e == nil {
		e = unicode.UTF8
		if !utf8.Valid(body) && !hasBOM(body) {
			e = charmap.Windows1252
		}
	}
	out, _, err := transform.Bytes(unicode.BOMOverride(e.NewDecoder()), body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return string(out)
}

// hasBOM reports whether body starts with a byte order mark, which
// decides the encoding over any label.
func hasBOM(body []byte) bool {
	for _, bom := range []string{"\xef\xbb\xbf", "\xfe\xff", "\xff\xfe"} {
		if bytes.HasPrefix(body, []byte(bom)) {
			return true
		}
	}
	return false
}

// mdConverter is shared: the converter is safe for concurrent use.
var mdConverter = func() *converter.Converter {
	c := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, tag := range []string{"svg", "template", "canvas", "object", "embed", "select", "button"} {
		c.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return c
}()

// ToMarkdown converts an HTML document (UTF-8) to Markdown: headings,
// links, lists, emphasis, code blocks, tables and images become Markdown;
// <head>, scripts, styles, forms' inputs, iframes, SVG and comments are
// removed. Relative links and image sources are resolved against the
// document's <base href> and pageURL (when pageURL is "", they are left
// relative). The output is deterministic: the same input gives the same
// bytes.
func ToMarkdown(htmlDoc []byte, pageURL string) (string, error) {
	doc, err := html.Parse(bytes.NewReader(htmlDoc))
	if err != nil {
		return "", fmt.Errorf("to markdown: %w", err)
	}
	var opts []converter.ConvertOptionFunc
	if base := baseURL(doc, pageURL); base != "" {
		opts = append(opts, converter.WithDomain(base))
	}
	md, err := mdConverter.ConvertNode(doc, opts...)
	if err != nil {
		return "", fmt.Errorf("to markdown: %w", err)
	}
	return string(md), nil
}

// baseURL returns pageURL resolved with the document's first <base href>.
func baseURL(doc *html.Node, pageURL string) string {
	var href string
	var find func(n *html.Node) bool
	find = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Base {
			for _, a := range n.Attr {
				if a.Key == "href" && a.Namespace == "" {
					href = strings.TrimSpace(a.Val)
					return true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(doc)
	if href == "" {
		return pageURL
	}
	b, err := url.Parse(href)
	if err != nil {
		return pageURL
	}
	if pageURL != "" {
		p, err := url.Parse(pageURL)
		if err != nil {
			return pageURL
		}
		b = p.ResolveReference(b)
	}
	if !b.IsAbs() {
		return pageURL
	}
	return b.String()
}

// ToText converts an HTML document (UTF-8) to plain text, the way a reader
// would see it without formatting: the text of the <body> with whitespace
// collapsed, one line per block (paragraph, heading, list item, table row),
// a blank line between paragraphs and headings, list items prefixed "- " or
// "1. ", table cells separated by tabs, <pre> kept verbatim. Markup, links'
// targets, images, <head>, scripts, styles and forms' inputs are dropped.
// The output is deterministic.
func ToText(htmlDoc []byte) (string, error) {
	doc, err := html.Parse(bytes.NewReader(htmlDoc))
	if err != nil {
		return "", fmt.Errorf("to text: %w", err)
	}
	w := &textWriter{}
	w.node(doc, 0)
	return w.finish(), nil
}

type textWriter struct {
	sb    strings.Builder
	brk   int  // pending line breaks: 1 newline, 2 blank line
	space bool // pending space
	pre   int  // depth inside <pre>
}

var skipText = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Select: true,
	atom.Input: true, atom.Textarea: true, atom.Button: true, atom.Title: true,
}

// paragraph elements get a blank line around them, line elements a line
// break.
var (
	paragraphs = map[atom.Atom]bool{
		atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
		atom.H5: true, atom.H6: true, atom.Pre: true, atom.Blockquote: true,
		atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Table: true,
		atom.Hr: true, atom.Figure: true, atom.Section: true, atom.Article: true,
		atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true,
		atom.Main: true, atom.Form: true, atom.Fieldset: true, atom.Details: true,
		atom.Address: true,
	}
	lines = map[atom.Atom]bool{
		atom.Div: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true,
		atom.Figcaption: true, atom.Summary: true, atom.Caption: true,
		atom.Legend: true, atom.Label: true, atom.Option: true,
	}
)

func (w *textWriter) breakAtLeast(n int) {
	w.brk = max(w.brk, n)
	w.space = false
}

func (w *textWriter) write(s string) {
	if s == "" {
		return
	}
	if w.sb.Len() > 0 {
		if w.brk > 0 {
			// Count the line breaks already written (a <pre> can end with one).
			have := len(w.sb.String()) - len(strings.TrimRight(w.sb.String(), "\n"))
			w.sb.WriteString(strings.Repeat("\n", max(w.brk-have, 0)))
		} else if w.space && !strings.HasSuffix(w.sb.String(), "\t") && !strings.HasSuffix(w.sb.String(), " ") {
			w.sb.WriteByte(' ')
		}
	}
	w.brk, w.space = 0, false
	w.sb.WriteString(s)
}

func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.write(s)
		return
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	lead := s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '\f'
	if lead {
		w.space = true
	}
	w.write(strings.Join(fields, " "))
	last := s[len(s)-1]
	w.space = last == ' ' || last == '\t' || last == '\n' || last == '\r' || last == '\f'
}

func (w *textWriter) node(n *html.Node, olIndex int) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	a := n.DataAtom
	if skipText[a] || hasAttr(n, "hidden") {
		return
	}
	switch a {
	case atom.Br:
		// One <br> ends the line, two make a blank line.
		w.brk = min(w.brk+1, 2)
		w.space = false
		return
	case atom.Hr:
		w.breakAtLeast(2)
		return
	case atom.Td, atom.Th:
		if prevElement(n) != nil {
			w.write("\t")
		}
		w.children(n)
		return
	case atom.Pre:
		w.breakAtLeast(2)
		w.pre++
		w.children(n)
		w.pre--
		w.breakAtLeast(2)
		return
	case atom.Li:
		w.breakAtLeast(1)
		if olIndex > 0 {
			w.write(fmt.Sprintf("%d. ", olIndex))
		} else {
			w.write("- ")
		}
		w.children(n)
		w.breakAtLeast(1)
		return
	case atom.Ol:
		w.breakAtLeast(2)
		i := 1
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Li {
				w.node(c, i)
				i++
			} else {
				w.node(c, 0)
			}
		}
		w.breakAtLeast(2)
		return
	}
	switch {
	case paragraphs[a]:
		w.breakAtLeast(2)
		w.children(n)
		w.breakAtLeast(2)
	case lines[a]:
		w.breakAtLeast(1)
		w.children(n)
		w.breakAtLeast(1)
	default:
		w.children(n)
	}
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, 0)
	}
}

func prevElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			return p
		}
	}
	return nil
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return true
		}
	}
	return false
}

func (w *textWriter) finish() string {
	out := w.sb.String()
	// Trim trailing spaces on each line.
	ls := strings.Split(out, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(strings.Join(ls, "\n"))
}
