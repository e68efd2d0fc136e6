package script

import (
	"sort"
	"strings"
)

// Completion is the name being typed at the cursor, as a binding's
// Complete finds it with ParseCompletion.
type Completion struct {
	// Start is the byte offset in the line where the name starts.
	Start int
	// Path are the names before the last separator: ["state"] for
	// "state.ge", nil for a plain name.
	Path []string
	// Seps are the separators after each name of Path ("." or ":").
	Seps []byte
	// Partial is what was typed of the last name.
	Partial string
}

// ParseCompletion finds the dotted name that ends at byte pos of line;
// seps are the bytes that separate its parts (Starlark ".", Lua ".:").
func ParseCompletion(line string, pos int, seps string) Completion {
	if pos < 0 || pos > len(line) {
		pos = len(line)
	}
	i := pos
	for i > 0 && (isIdentByte(line[i-1]) || strings.IndexByte(seps, line[i-1]) >= 0) {
		i--
	}
	// A name starts with a letter or _, not a digit or a separator.
	for i < pos && !(isIdentByte(line[i]) && (line[i] < '0' || line[i] > '9')) {
		i++
	}
	c := Completion{Start: i}
	word := line[i:pos]
	for {
		j := strings.IndexAny(word, seps)
		if j < 0 {
			break
		}
		c.Path = append(c.Path, word[:j])
		c.Seps = append(c.Seps, word[j])
		word = word[j+1:]
	}
	c.Partial = word
	return c
}

// Candidates returns the names that complete c, each with c's path
// before it, sorted and without duplicates. Names starting with _ are
// left out unless the partial name starts with _.
func (c Completion) Candidates(names []string) []string {
	var head strings.Builder
	for i, p := range c.Path {
		head.WriteString(p)
		head.WriteByte(c.Seps[i])
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, c.Partial) || strings.HasPrefix(n, "_") && !strings.HasPrefix(c.Partial, "_") || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, head.String()+n)
	}
	sort.Strings(out)
	return out
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
