package skills_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent/skills"
)

// TestParseYAML: front matter is YAML, so what YAML allows works.
func TestParseYAML(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		dirName, content, description string
	}{
		"alias":             {"al", "---\nname: al\nshared: &d Said once.\ndescription: *d\n---\n", "Said once."},
		"flow mapping":      {"fm", "---\nname: fm\nmetadata: {author: x, tags: [a, b]}\ndescription: d\n---\n", "d"},
		"tagged":            {"tg", "---\nname: tg\ndescription: !!str 1.5\n---\n", "1.5"},
		"keep chomping":     {"kc", "---\nname: kc\ndescription: |+\n  kept\n\n---\n", "kept"},
		"indented sequence": {"is", "---\nname: is\nallowed-tools:\n- Read\n- Bash\ndescription: d\n---\n", "d"},
		"escapes":           {"es", "---\nname: es\ndescription: \"tab\\there \\u00e9 \\x41\"\n---\n", "tab\there é A"},
		"comment only line": {"co", "---\n# c\nname: co # n\ndescription: d # c\n---\n", "d"},
	}
	for label, c := range cases {
		t.Run(label, func(t *testing.T) {
			p := writeSkill(t, dir, c.dirName, c.content)
			s, err := skills.Parse(p)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if s.Name != c.dirName || s.Description != c.description {
				t.Errorf("Parse = %q, %q; want %q, %q", s.Name, s.Description, c.dirName, c.description)
			}
		})
	}
}

// TestParseYAMLErrors: a YAML error names the file, the line of the file
// and, where it can, the key.
func TestParseYAMLErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		label, content, want string
	}{
		{"bad escape", "---\nname: NAME\ndescription: \"a \\q b\"\n---\n", "front matter line 3: description: found unknown escape character"},
		{"tab indentation", "---\nname: NAME\n\tdescription: d\n---\n", "front matter line 3: found a tab character that violates indentation (indent with spaces)"},
		{"colon in a plain value", "---\nname: NAME\ndescription: see: this\n---\n", "front matter line 3: description: mapping values are not allowed in this context (quote a value that holds \": \")"},
		{"not key value", "---\nname: NAME\nmore: x\njust text\n---\n", "front matter line 4: could not find expected ':' (want \"key: value\")"},
		{"unclosed quote", "---\nname: NAME\ndescription: 'open\n---\n", "front matter line 3: description: found unexpected end of stream (missing closing quote?)"},
		{"unclosed flow", "---\nname: NAME\ndescription: [a, b\n---\n", "did not find expected ',' or ']'"},
		{"a list", "---\n- name\n- description\n---\n", "front matter line 2: got a list, want \"key: value\" lines"},
		{"a scalar", "---\njust words\n---\n", "front matter line 2: got \"just words\", want \"key: value\" lines"},
		{"a list as a key", "---\nname: NAME\n? [a, b]\n: c\ndescription: d\n---\n", "front matter line 3: got a list as a key, want a string"},
		{"duplicate key", "---\nname: NAME\ndescription: d\nname: NAME\n---\n", "front matter line 4: key \"name\" repeats line 2"},
		{"description a mapping", "---\nname: NAME\ndescription:\n  text: d\n---\n", "description must be a string"},
		{"name an alias of a list", "---\nl: &l [a]\nname: *l\ndescription: d\n---\n", "name must be a string"},
		{"undefined alias", "---\nname: NAME\ndescription: *nothing\n---\n", "front matter: unknown anchor 'nothing' referenced"},
		{"too deep", "---\nname: NAME\ndescription: d\nx: " + strings.Repeat("[", 20000) + "\n---\n", "max depth"},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			name := strings.ReplaceAll(c.label, " ", "-")
			p := writeSkill(t, dir, name, strings.ReplaceAll(c.content, "NAME", name))
			_, err := skills.Parse(p)
			if err == nil {
				t.Fatalf("Parse succeeded, want an error %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "skills: "+p+": ") {
				t.Errorf("Parse error:\n got %q\nwant %q after the file name", err, c.want)
			}
		})
	}
}

// TestFrontMatterTooLong: the front matter is read up to a bound, so a
// file without a closing line is not read whole.
func TestFrontMatterTooLong(t *testing.T) {
	content := "---\nname: tl\ndescription: d\n" + strings.Repeat("k: v\n", 20000) + "---\n"
	p := writeSkill(t, t.TempDir(), "tl", content)
	_, err := skills.Parse(p)
	if err == nil || !strings.Contains(err.Error(), `no closing "---" line in its first 65536 bytes`) {
		t.Errorf("Parse: got %v, want the bound named", err)
	}
	if _, err := skills.Body(filepath.Join(filepath.Dir(p), skills.FileName)); err == nil {
		t.Error("Body: got no error")
	}
}
