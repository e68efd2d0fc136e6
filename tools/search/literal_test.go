package search

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// foldIndex is the first ASCII-case-insensitive occurrence of lower in
// h, by brute force.
func foldIndex(h []byte, lower string) int {
	for k := 0; k+len(lower) <= len(h); k++ {
		if strings.EqualFold(string(h[k:k+len(lower)]), lower) {
			return k
		}
	}
	return -1
}

// TestLiteralIndexLong checks index against bytes.Index and brute force
// on long texts built so that the literal's rarest byte is sometimes
// rare, sometimes in every other byte (where the search gives up on it
// part way), with occurrences anywhere, at the edges and straddling the
// point where it gives up.
func TestLiteralIndexLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	lits := []string{"atomic.addint64(&", "&x", "ab", "aab", "qq&q", "x&&", "kelvin&", "&", "zzzz", "a&b&c&d"}
	for i := range 3000 {
		lit := lits[rng.IntN(len(lits))]
		// Texts of the literal's bytes, in both cases, and others; dense
		// texts hold its rarest byte ('&' or 'q' or 'z') very often.
		alphabet := []byte(lit + strings.ToUpper(lit) + " \n.abcxyz")
		if rng.IntN(2) == 0 {
			alphabet = []byte(" \n.abcxyzABCXYZ\t(){}")
		}
		h := make([]byte, rng.IntN(3000))
		for j := range h {
			h[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if len(h) > len(lit) && rng.IntN(2) == 0 {
			at := rng.IntN(len(h) - len(lit) + 1)
			w := lit
			if rng.IntN(2) == 0 {
				w = strings.ToUpper(lit)
			}
			copy(h[at:], w)
		}
		if got, want := newLiteral(lit, false).index(h), bytes.Index(h, []byte(lit)); got != want {
			t.Fatalf("case %d: index(%q in %d bytes) = %d, want %d", i, lit, len(h), got, want)
		}
		if got, want := newLiteral(lit, true).index(h), foldIndex(h, lit); got != want {
			t.Fatalf("case %d: fold index(%q in %d bytes) = %d, want %d", i, lit, len(h), got, want)
		}
	}
}

// TestLiteralRarestByte checks that a literal is searched for by its
// rarest byte: in code, '&' of `atomic.AddInt64(&`, not its first.
func TestLiteralRarestByte(t *testing.T) {
	freq := func(c byte, fold bool) uint32 {
		if fold && c >= 'a' && c <= 'z' {
			return byteFreq[c] + byteFreq[c-'a'+'A']
		}
		return byteFreq[c]
	}
	for _, c := range []struct {
		s    string
		fold bool
	}{
		{"atomic.AddInt64(&", false}, {"e Context(&", false}, {"return", false}, {"x", false},
		{"unicode.", true}, {"zq", true}, {"a\x00b", false}, {"é", false}, {"return nil, errors", true},
	} {
		l := newLiteral(c.s, c.fold)
		for i := range len(c.s) {
			if freq(c.s[i], c.fold) < freq(l.lo, c.fold) {
				t.Errorf("newLiteral(%q, %v): searched by %q, but %q is rarer", c.s, c.fold, l.lo, c.s[i])
			}
		}
		if c.s[l.off] != l.lo {
			t.Errorf("newLiteral(%q, %v): byte %q at %d, but the literal holds %q there", c.s, c.fold, l.lo, l.off, c.s[l.off])
		}
		if up := l.lo; c.fold && up >= 'a' && up <= 'z' && l.up != up-'a'+'A' || !c.fold && l.up != l.lo {
			t.Errorf("newLiteral(%q, %v): other case %q of %q", c.s, c.fold, l.up, l.lo)
		}
	}
	if l := newLiteral("atomic.AddInt64(&", false); l.lo != '&' {
		t.Errorf("atomic.AddInt64(&: searched by %q, want '&'", l.lo)
	}
}

// TestLiteralIndexGivesUp puts an occurrence right after every point
// where the search can give up on a rare byte that is common in the
// text: a run of k '&' then "&x".
func TestLiteralIndexGivesUp(t *testing.T) {
	for _, fold := range []bool{false, true} {
		l := newLiteral("&x", fold)
		if l.lo != '&' {
			t.Fatalf("&x: searched by %q, want '&'", l.lo)
		}
		for k := range 300 {
			h := []byte(strings.Repeat("&", k) + "&X" + "&x")
			want := k + 2
			if fold {
				want = k
			}
			if got := l.index(h); got != want {
				t.Errorf("fold %v, %d '&' first: index = %d, want %d", fold, k, got, want)
			}
		}
	}
}
