package skills

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxFrontMatter bounds how much of a file is read looking for the end of
// its front matter.
const maxFrontMatter = 64 << 10

var errNoFrontMatter = errors.New(`no front matter: the file must start with a "---" line`)

// readFrontMatter reads the front matter lines (without the delimiters)
// from r, stopping at the closing "---" line. It returns the number of bytes
// consumed, delimiters included, so the body starts there.
func readFrontMatter(r io.Reader) (lines []string, n int, err error) {
	br := bufio.NewReader(r)
	first := true
	for {
		line, err := br.ReadString('\n')
		n += len(line)
		if err != nil && err != io.EOF {
			return nil, n, err
		}
		text := strings.TrimRight(line, "\r\n")
		if first {
			text = strings.TrimPrefix(text, "\uFEFF")
			if strings.TrimRight(text, " \t") != "---" {
				return nil, n, errNoFrontMatter
			}
			first = false
		} else if strings.TrimRight(text, " \t") == "---" {
			return lines, n, nil
		} else if line != "" {
			lines = append(lines, text)
		}
		if err == io.EOF {
			return nil, n, errors.New(`the front matter has no closing "---" line`)
		}
		if n > maxFrontMatter {
			return nil, n, fmt.Errorf(`the front matter has no closing "---" line in its first %d bytes`, maxFrontMatter)
		}
	}
}

// value is a top-level front matter value.
type value struct {
	text   string // the scalar's value
	scalar bool   // false for a mapping or a sequence
	line   int    // 1-based line in the file
}

// parseFrontMatter parses the top-level keys of YAML front matter. lines
// are the lines between the delimiters; the first is line 2 of the file.
func parseFrontMatter(lines []string) (map[string]value, error) {
	out := map[string]value{}
	for i := 0; i < len(lines); {
		line := lines[i]
		lineNo := i + 2
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			i++
			continue
		}
		if indented(line) {
			return nil, fmt.Errorf("front matter line %d: unexpected indentation", lineNo)
		}
		key, rest, ok := splitKey(line)
		if !ok {
			return nil, fmt.Errorf(`front matter line %d: got %q, want "key: value"`, lineNo, trimmed)
		}
		if prev, dup := out[key]; dup {
			return nil, fmt.Errorf("front matter line %d: key %q repeats line %d", lineNo, key, prev.line)
		}
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indented(lines[j])) {
			j++
		}
		v, err := scalar(rest, lines[i+1:j])
		if err != nil {
			return nil, fmt.Errorf("front matter line %d: %s: %v", lineNo, key, err)
		}
		v.line = lineNo
		out[key] = v
		i = j
	}
	return out, nil
}

func indented(line string) bool {
	return line != "" && (line[0] == ' ' || line[0] == '\t')
}

// splitKey splits "key: rest" (the key possibly quoted).
func splitKey(line string) (key, rest string, ok bool) {
	if line[0] == '"' || line[0] == '\'' {
		end := strings.IndexByte(line[1:], line[0])
		if end < 0 {
			return "", "", false
		}
		key, rest = line[1:end+1], strings.TrimLeft(line[end+2:], " \t")
		if !strings.HasPrefix(rest, ":") {
			return "", "", false
		}
		return key, rest[1:], true
	}
	for i := 0; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			key = strings.TrimSpace(line[:i])
			if key == "" || strings.HasPrefix(key, "- ") || key == "-" {
				return "", "", false
			}
			return key, line[i+1:], true
		}
	}
	return "", "", false
}

// scalar interprets the value after "key:" and the indented lines that
// follow it.
func scalar(rest string, more []string) (value, error) {
	rest = strings.TrimSpace(rest)
	for len(more) > 0 && strings.TrimSpace(more[len(more)-1]) == "" {
		more = more[:len(more)-1]
	}
	switch {
	case rest == "":
		if len(more) == 0 {
			return value{scalar: true}, nil
		}
		var first string
		for _, l := range more {
			if first = strings.TrimSpace(l); first != "" {
				break
			}
		}
		if first == "-" || strings.HasPrefix(first, "- ") || strings.HasSuffix(first, ":") || strings.Contains(first, ": ") {
			return value{}, nil // a nested mapping or sequence
		}
		return value{text: fold(more), scalar: true}, nil
	case rest[0] == '|' || rest[0] == '>':
		header := rest[1:]
		if i := strings.Index(header, "#"); i >= 0 && (i == 0 || header[i-1] == ' ' || header[i-1] == '\t') {
			header = header[:i]
		}
		if strings.Trim(strings.TrimSpace(header), "+-123456789") != "" {
			return value{}, fmt.Errorf("invalid block scalar header %q", rest)
		}
		return value{text: block(rest[0] == '>', more), scalar: true}, nil
	case rest[0] == '"' || rest[0] == '\'':
		s := rest
		if len(more) > 0 {
			s = rest + " " + fold(more)
		}
		text, err := quoted(s)
		return value{text: text, scalar: true}, err
	case rest[0] == '[' || rest[0] == '{':
		return value{}, nil // a flow sequence or mapping
	}
	if i := strings.Index(rest, " #"); i >= 0 {
		rest = strings.TrimSpace(rest[:i])
	}
	if i := strings.Index(rest, "\t#"); i >= 0 {
		rest = strings.TrimSpace(rest[:i])
	}
	if len(more) > 0 {
		rest += " " + fold(more)
	}
	if rest == "~" || rest == "null" || rest == "Null" || rest == "NULL" {
		rest = ""
	}
	return value{text: rest, scalar: true}, nil
}

// fold joins the lines of a multi-line flow scalar: line breaks become
// spaces, and each empty line becomes a newline.
func fold(lines []string) string {
	var b strings.Builder
	pendingSpace := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			b.WriteByte('\n')
			pendingSpace = false
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
		}
		b.WriteString(l)
		pendingSpace = true
	}
	return b.String()
}

// block returns the content of a literal or folded block scalar, without
// its final line break (chomping indicators are accepted, not applied).
func block(folded bool, lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			indent = len(l) - len(strings.TrimLeft(l, " \t"))
			break
		}
	}
	if indent < 0 {
		return ""
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		out[i] = l[min(n, indent):]
	}
	if !folded {
		return strings.Join(out, "\n")
	}
	var b strings.Builder
	for i, l := range out {
		// Each empty line is a line break; other breaks between lines of
		// text fold into spaces, unless a line is more indented.
		switch {
		case i == 0, l != "" && out[i-1] == "":
		case l == "" || indented(l) || indented(out[i-1]):
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return b.String()
}

// quoted decodes a single- or double-quoted scalar; only a comment may
// follow the closing quote.
func quoted(s string) (string, error) {
	q := s[0]
	var b strings.Builder
	i := 1
	for {
		if i >= len(s) {
			return "", fmt.Errorf("missing closing %c", q)
		}
		c := s[i]
		if c == q {
			if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			i++
			break
		}
		if c == '\\' && q == '"' {
			n, err := unescape(&b, s[i:])
			if err != nil {
				return "", err
			}
			i += n
			continue
		}
		b.WriteByte(c)
		i++
	}
	if tail := strings.TrimSpace(s[i:]); tail != "" && !strings.HasPrefix(tail, "#") {
		return "", fmt.Errorf("unexpected %q after the closing quote", tail)
	}
	return b.String(), nil
}

// unescape decodes the escape sequence at the start of s into b and
// returns its length.
func unescape(b *strings.Builder, s string) (int, error) {
	if len(s) < 2 {
		return 0, errors.New(`a "\" ends the string`)
	}
	simple := map[byte]string{
		'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v",
		'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': `"`, '/': "/", '\\': `\`,
		'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029",
	}
	if r, ok := simple[s[1]]; ok {
		b.WriteString(r)
		return 2, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[1]]
	if digits == 0 || len(s) < 2+digits {
		return 0, fmt.Errorf("invalid escape %q", s[:min(len(s), 2+digits)])
	}
	n, err := strconv.ParseUint(s[2:2+digits], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return 0, fmt.Errorf("invalid escape %q", s[:2+digits])
	}
	b.WriteRune(rune(n))
	return 2 + digits, nil
}
