// Package wording holds the few helpers that messages share, so that every
// message writes a list the same way.
package wording

import "strings"

// OrList writes items as "a", "a or b", "a, b or c".
func OrList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
