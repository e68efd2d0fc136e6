package search

import (
	"path"
	"strings"
)

// cleanBelow reports whether rel is a clean slash-separated path below
// the root: not empty, not absolute, with no "." or ".." component. Paths
// a program printed are opened below the root only if they are.
func cleanBelow(rel string) bool {
	return rel != "" && rel != "." && rel != ".." && rel[0] != '/' &&
		!strings.HasPrefix(rel, "../") && path.Clean(rel) == rel
}
