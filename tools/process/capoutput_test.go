package process

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapOutput(t *testing.T) {
	long := strings.Repeat("a", 60) + strings.Repeat("b", 60)
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"", 10, ""},
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"anything", 0, "anything"},
		{"anything", -1, "anything"},
		{strings.Repeat("é", 10), 10, strings.Repeat("é", 10)}, // 20 bytes, 10 characters
		// The marker takes 33 of the 60 characters; 27 are kept.
		{long, 60, strings.Repeat("a", 14) + "\n... [93 characters omitted] ...\n" + strings.Repeat("b", 13)},
		{"ab€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€𝄞", 40,
			"ab€€" + "\n... [99 characters omitted] ...\n" + "€€𝄞"}, // 106 characters; 7 kept
		{long, 10, "aaaaaaaaaa"}, // no room for the marker
	}
	for _, tt := range tests {
		got := CapOutput(tt.s, tt.max)
		if got != tt.want {
			t.Errorf("CapOutput(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestCapOutputProperties(t *testing.T) {
	alphabet := []rune("aé€𝄞\n")
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := r.IntN(400)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(rs)
		max := r.IntN(300)
		got := CapOutput(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("CapOutput(%q, %d) split a character: %q", s, max, got)
		}
		if max > 0 && utf8.RuneCountInString(got) > max {
			t.Fatalf("CapOutput(%q, %d) has %d characters", s, max, utf8.RuneCountInString(got))
		}
		if max <= 0 || n <= max {
			if got != s {
				t.Fatalf("CapOutput(%q, %d) changed a string within the limit", s, max)
			}
			continue
		}
		head, tail, ok := strings.Cut(got, "\n... [")
		if !ok {
			if !strings.HasPrefix(s, got) || utf8.RuneCountInString(got) != max {
				t.Fatalf("CapOutput(%q, %d) = %q: no marker and not a prefix", s, max, got)
			}
			continue
		}
		count, tail, _ := strings.Cut(tail, " characters omitted] ...\n")
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Fatalf("CapOutput(%q, %d) = %q: not head+marker+tail", s, max, got)
		}
		if want := n - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail); count != strconv.Itoa(want) {
			t.Fatalf("CapOutput(%q, %d) = %q: marker says %s, cut %d", s, max, got, count, want)
		}
		if utf8.RuneCountInString(got) != max {
			t.Fatalf("CapOutput(%q, %d) has %d characters, want exactly %d", s, max, utf8.RuneCountInString(got), max)
		}
	}
}

func TestCapBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		max := 1 + r.IntN(64)
		b := newCapBuffer(max)
		var all []byte
		for range r.IntN(20) {
			p := make([]byte, r.IntN(40))
			for i := range p {
				p[i] = byte('a' + r.IntN(26))
			}
			if n, err := b.Write(p); n != len(p) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			all = append(all, p...)
		}
		got := b.Bytes()
		if len(all) <= max {
			if !bytes.Equal(got, all) {
				t.Fatalf("max %d: got %q, want %q", max, got, all)
			}
			continue
		}
		headN := (max + 1) / 2
		tailN := max - headN
		want := string(all[:headN]) + capMarker(len(all)-max, "bytes") + string(all[len(all)-tailN:])
		if string(got) != want {
			t.Fatalf("max %d: got %q, want %q", max, got, want)
		}
	}
}

func TestCapBufferUTF8(t *testing.T) {
	b := newCapBuffer(10)
	b.Write([]byte(strings.Repeat("€", 20))) // 3 bytes each: the cut falls inside characters
	got := string(b.Bytes())
	if !utf8.ValidString(got) {
		t.Fatalf("split a character: %q", got)
	}
	// head: 5 bytes -> one € (3) kept; tail: 5 bytes -> one € kept.
	if want := "€" + capMarker(54, "bytes") + "€"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
