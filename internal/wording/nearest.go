package wording

import "strings"

// Nearest returns the name in names that word most likely misspells: the
// first of the closest within an edit distance of 2 (ignoring case), or
// else the first that starts with word. ok is false when none is near.
func Nearest(word string, names []string) (name string, ok bool) {
	best := 3
	for _, n := range names {
		if d := distance(strings.ToLower(word), strings.ToLower(n)); d < best {
			name, best, ok = n, d, true
		}
	}
	if ok || word == "" {
		return name, ok
	}
	for _, n := range names {
		if strings.HasPrefix(n, word) {
			return n, true
		}
	}
	return "", false
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
