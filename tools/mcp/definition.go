package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Definition is what a pin records of an upstream tool: everything of it
// that reaches the model, a policy or a person — its server and remote
// name, title, description, input schema and annotations. The schema and
// annotations are canonical JSON (keys sorted, no spaces, numbers as
// written), so the same definition sent in another layout pins the same.
type Definition struct {
	Server      string          `json:"server"`
	Tool        string          `json:"tool"` // the name the server gives it
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// definitionOf returns the definition of a remote tool of server.
func definitionOf(server string, t *sdk.Tool) (Definition, error) {
	d := Definition{Server: server, Tool: t.Name, Title: t.Title, Description: t.Description}
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return Definition{}, fmt.Errorf("input schema: %v", err)
		}
		if string(b) != "null" {
			if d.InputSchema, err = canonicalJSON(b); err != nil {
				return Definition{}, fmt.Errorf("input schema: %v", err)
			}
		}
	}
	if t.Annotations != nil {
		b, err := json.Marshal(t.Annotations)
		if err != nil {
			return Definition{}, fmt.Errorf("annotations: %v", err)
		}
		if string(b) != "{}" {
			if d.Annotations, err = canonicalJSON(b); err != nil {
				return Definition{}, fmt.Errorf("annotations: %v", err)
			}
		}
	}
	return d, nil
}

// canonicalJSON re-encodes one JSON value with object keys sorted, no
// spaces and no HTML escaping; numbers keep their literal text, so that
// two numbers a float64 cannot tell apart stay apart.
func canonicalJSON(b []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// digest is the SHA-256 of the definition's canonical JSON, in hex.
func (d *Definition) digest() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(d) // strings and canonical JSON: cannot fail
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// description is what the model is told the tool does: its description,
// else its title, else the title in its annotations.
func (d *Definition) description() string {
	if d.Description != "" {
		return d.Description
	}
	if d.Title != "" {
		return d.Title
	}
	var a struct {
		Title string `json:"title"`
	}
	_ = json.Unmarshal(d.Annotations, &a)
	return a.Title
}

// Hints are the tool's annotations as the server sent them (nil when it
// sent none). They are the server's claims: agentsh shows them and
// decides nothing by them.
func (d *Definition) Hints() *sdk.ToolAnnotations {
	if len(d.Annotations) == 0 {
		return nil
	}
	a := &sdk.ToolAnnotations{}
	if err := json.Unmarshal(d.Annotations, a); err != nil {
		return nil
	}
	return a
}

// changes names the parts in which now differs from d: "name" (another
// server or remote name behind the same local name), "title",
// "description", "input schema", "annotations".
func (d *Definition) changes(now *Definition) []string {
	var parts []string
	if d.Server != now.Server || d.Tool != now.Tool {
		parts = append(parts, "name")
	}
	if d.Title != now.Title {
		parts = append(parts, "title")
	}
	if d.Description != now.Description {
		parts = append(parts, "description")
	}
	if !bytes.Equal(d.InputSchema, now.InputSchema) {
		parts = append(parts, "input schema")
	}
	if !bytes.Equal(d.Annotations, now.Annotations) {
		parts = append(parts, "annotations")
	}
	return parts
}

// Text renders the definition for a person, one part after another, the
// description and the JSON indented below their labels. Every character
// that would not show, or would show as something else (controls,
// zero-width and other format characters, variation selectors, spaces
// other than U+0020, a line's trailing spaces), is written as <U+XXXX>,
// so that two texts that differ look different; see Visible.
func (d *Definition) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server: %s\n", Visible(d.Server))
	fmt.Fprintf(&b, "tool: %s\n", Visible(d.Tool))
	if d.Title != "" {
		fmt.Fprintf(&b, "title: %s\n", Visible(d.Title))
	}
	b.WriteString("description:\n")
	writeIndented(&b, Visible(d.Description))
	b.WriteString("input schema:\n")
	writeIndented(&b, Visible(prettyJSON(d.InputSchema, `{"type":"object"}`)))
	if len(d.Annotations) > 0 {
		b.WriteString("annotations:\n")
		writeIndented(&b, Visible(prettyJSON(d.Annotations, "")))
	}
	return b.String()
}

func prettyJSON(raw json.RawMessage, empty string) string {
	if len(raw) == 0 {
		raw = json.RawMessage(empty)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

func writeIndented(b *strings.Builder, text string) {
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("  ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// maxDiffText bounds the texts Diff compares, together.
const maxDiffText = 1 << 20

// Diff is a unified diff of two definitions' Text, pinned → live, or ""
// when their texts are the same. Texts of more than 1 MiB together are
// not compared: the diff is one line that gives their sizes.
func Diff(pinned, live *Definition) string {
	a, b := pinned.Text(), live.Text()
	if len(a)+len(b) > maxDiffText {
		if a == b {
			return ""
		}
		return fmt.Sprintf("(too large to show as a diff: %d bytes pinned, %d live)\n", len(a), len(b))
	}
	return udiff.Unified("pinned", "live", a, b)
}

// Visible returns s with every character a person could not see, or
// could mistake for another, written as <U+XXXX> (four to six hex
// digits): control characters other than newline, format characters
// (zero-width spaces and joiners, bidirectional overrides, tag
// characters), variation selectors and other default-ignorable code
// points, characters that do not print, spaces other than U+0020, and the
// spaces that end a line. Bytes that are not UTF-8 become <U+FFFD>. A "<"
// that starts "<U+" in s is itself written <U+003C>, so every <U+XXXX> in
// the result stands for one character of s.
func Visible(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == ' ':
			if end := lineEnd(s[i:]); strings.Trim(end, " ") == "" {
				// Trailing spaces: each one shown.
				for range len(end) {
					b.WriteString("<U+0020>")
				}
				i += len(end)
				continue
			}
			b.WriteByte(' ')
		case r == '<' && strings.HasPrefix(s[i+1:], "U+"):
			b.WriteString("<U+003C>")
		case r == utf8.RuneError && size == 1:
			b.WriteString("<U+FFFD>")
		case hidden(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// lineEnd is s up to its first newline (or its end).
func lineEnd(s string) string {
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		return s[:j]
	}
	return s
}

// hidden reports whether r is shown as <U+XXXX> by Visible.
func hidden(r rune) bool {
	return !unicode.IsGraphic(r) ||
		unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Zs, r) || // U+0020 is handled before
		unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}
