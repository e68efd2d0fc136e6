package skills

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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
	text   string // the scalar's value; "" for null
	scalar bool   // false for a mapping or a sequence
	line   int    // 1-based line in the file
}

// parseFrontMatter parses YAML front matter into its top-level keys. lines
// are the lines between the delimiters; the first is line 2 of the file.
//
// The document is parsed into nodes and never into Go values, so an alias
// is a pointer to the node it names: a document of aliases of aliases (a
// "billion laughs") costs what its text does. readFrontMatter bounds the
// text, and the parser bounds nesting.
func parseFrontMatter(lines []string) (map[string]value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &doc); err != nil {
		return nil, syntaxError(err, lines)
	}
	out := map[string]value{}
	if len(doc.Content) == 0 {
		return out, nil // only blank lines and comments
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf(`front matter line %d: got %s, want "key: value" lines`, fileLine(top.Line), kindName(top))
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		line := fileLine(k.Line)
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("front matter line %d: got %s as a key, want a string", line, kindName(k))
		}
		if prev, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("front matter line %d: key %q repeats line %d", line, k.Value, prev.line)
		}
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		val := value{line: line}
		if v.Kind == yaml.ScalarNode {
			val.scalar = true
			if v.ShortTag() != "!!null" {
				val.text = v.Value
			}
		}
		out[k.Value] = val
	}
	return out, nil
}

// fileLine turns a line of the front matter into a line of the file.
func fileLine(n int) int { return n + 1 }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("%q", n.Value)
}

// yamlHints say what the YAML parser's terse messages usually mean in
// front matter.
var yamlHints = map[string]string{
	"could not find expected ':'":                     `want "key: value"`,
	"found unexpected end of stream":                  "missing closing quote?",
	"found a tab character that violates indentation": "indent with spaces",
	"mapping values are not allowed in this context":  `quote a value that holds ": "`,
}

// syntaxError rewrites the YAML parser's error ("yaml: line N: problem")
// with the line of the file and, where the line starts a top-level key,
// that key.
func syntaxError(err error, lines []string) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return fmt.Errorf("front matter: %s", msg)
	}
	num, problem, ok := strings.Cut(rest, ": ")
	n, convErr := strconv.Atoi(num)
	if !ok || convErr != nil {
		return fmt.Errorf("front matter: %s", msg)
	}
	if hint, ok := yamlHints[problem]; ok {
		problem += " (" + hint + ")"
	}
	if n >= 1 && n <= len(lines) {
		if key, _, ok := strings.Cut(lines[n-1], ":"); ok && key != "" && !strings.ContainsAny(key[:1], " \t#-\"'") {
			problem = key + ": " + problem
		}
	}
	return fmt.Errorf("front matter line %d: %s", fileLine(n), problem)
}
