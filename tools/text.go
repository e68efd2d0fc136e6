package tools

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// maxLineChars is where read_file and grep cut a long line.
const maxLineChars = 2000

// cutLine cuts s after max characters and says how many were dropped.
func cutLine(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	i, n := 0, 0
	for i < len(s) && n < max {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return fmt.Sprintf("%s… [line cut: %d more characters]", s[:i], utf8.RuneCountInString(s[i:]))
}

// isBinary reports whether data looks binary: a NUL byte in its first
// 8 KiB, the rule the search backends use too.
func isBinary(data []byte) bool {
	n := min(len(data), 8192)
	for _, b := range data[:n] {
		if b == 0 {
			return true
		}
	}
	return false
}

// sortBy sorts s by key, byte-wise.
func sortBy[T any](s []T, key func(T) string) {
	sort.Slice(s, func(i, j int) bool { return key(s[i]) < key(s[j]) })
}

// jsonText is s as JSON gives it back: each byte that is not part of
// valid UTF-8 replaced by U+FFFD. Data holding text that is not UTF-8
// goes through a JSON round trip whole (see core.Result.SetData), so a
// tool that replaces the bytes itself keeps its data plain.
func jsonText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}
