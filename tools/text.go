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
