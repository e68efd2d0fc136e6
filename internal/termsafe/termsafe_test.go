package termsafe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\twith tabs\nand lines\n", "plain text\twith tabs\nand lines\n"},
		{"héllo wörld, 日本語, emoji ❤️ 👍", "héllo wörld, 日本語, emoji ❤️ 👍"},
		// Escape sequences: ESC is spelled, so none starts.
		{"\x1b]52;c;Y3VybCB8IHNo\x07", `\u{1b}]52;c;Y3VybCB8IHNo\u{7}`},
		{"\x1b[8mhidden\x1b[0m", `\u{1b}[8mhidden\u{1b}[0m`},
		{"\x1b[2J\x1b[H", `\u{1b}[2J\u{1b}[H`},
		{"\x1bP1$r\x1b\\", `\u{1b}P1$r\u{1b}\`},
		// C0, DEL, C1 as characters and as bytes that are not UTF-8.
		{"a\x00b\x7fc\u009bd\x9b", `a\u{0}b\u{7f}c\u{9b}d\x{9b}`},
		{"\xff\xfe", `\x{ff}\x{fe}`},
		// A carriage return only before a newline.
		{"a\r\nb\rc\r", "a\r\nb" + `\u{d}c\u{d}`},
		// Bidi, zero-width and tag characters.
		{"rm -rf ~\u202e\u2066x\u2069\u200e\u200f\u061c", `rm -rf ~\u{202e}\u{2066}x\u{2069}\u{200e}\u{200f}\u{61c}`},
		{"a\u200bb\u200cc\u200dd\u2060e\ufefff", `a\u{200b}b\u{200c}c\u{200d}d\u{2060}e\u{feff}f`},
		{"x\U000e0041\U000e007f\U000e0000", `x\u{e0041}\u{e007f}\u{e0000}`},
		{"\u2028\u2029\u00ad\u3164\u034f", `\u{2028}\u{2029}\u{ad}\u{3164}\u{34f}`},
		// Variation selectors: a presentation selector after a glyph
		// shows; one with nothing to select, or any other, is spelled.
		{"❤\ufe0f", "❤\ufe0f"},
		{"\ufe0fx", `\u{fe0f}x`},
		{"a\ufe0f\ufe0f", "a\ufe0f" + `\u{fe0f}`},
		{" \ufe0e", ` \u{fe0e}`},
		{"a\ufe00\U000e0100", `a\u{fe00}\u{e0100}`},
		// Backslashes: as they are, unless they would read as a spelling.
		{`C:\dir\x1b "\x1b" \\d+ \u202e \u{}`, `C:\dir\x1b "\x1b" \\d+ \u202e \u{}`},
		{`\u{1b}`, `\\u{1b}`},
		{`\\x{ff}`, `\\\\x{ff}`},
		{`\x{f}`, `\x{f}`},
		{`\u{1234567}`, `\u{1234567}`},
		{"\\\x1b", `\\\u{1b}`},
		{"\\\\\xff", `\\\\\x{ff}`},
		{`end\`, `end\`},
		{"\\\r\n", "\\\r\n"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if got, err := read(tt.want); err != nil || got != tt.in {
			t.Errorf("read(%q) = %q, %v; want %q", tt.want, got, err, tt.in)
		}
	}
}

// A sequence cut between writes is spelled out as a whole one is, however
// it is cut.
func TestWriterCuts(t *testing.T) {
	in := "ok \x1b]52;c;Y3Vy\x07 \u202e\U000e0041 \\u{1b} \\\xe2\x80\xae é\r\n\\x{f"
	want := String(in)
	for cut := 0; cut <= len(in); cut++ {
		for cut2 := cut; cut2 <= len(in); cut2++ {
			var b bytes.Buffer
			w := NewWriter(&b)
			for _, part := range []string{in[:cut], in[cut:cut2], in[cut2:]} {
				if n, err := w.WriteString(part); n != len(part) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", part, n, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Fatalf("cut at %d and %d: got %q, want %q", cut, cut2, b.String(), want)
			}
		}
	}
}

// What a Write holds back is an undecided end, never more: the rest is
// written at once.
func TestWriterHoldsBackLittle(t *testing.T) {
	for _, tt := range []struct{ in, shown string }{
		{"done\n", "done\n"},
		{"caf\xc3", "caf"},
		{"line\r", "line"},
		{`path\u{1`, `path\`},
		{"\x1b", `\u{1b}`},
	} {
		var b bytes.Buffer
		w := NewWriter(&b)
		w.WriteString(tt.in)
		if b.String() != tt.shown {
			t.Errorf("after Write(%q): shown %q, want %q", tt.in, b.String(), tt.shown)
		}
		w.Flush()
		if b.String() != String(tt.in) {
			t.Errorf("after Flush of %q: shown %q, want %q", tt.in, b.String(), String(tt.in))
		}
	}
}

// A failing writer's error comes back, and nothing is counted written.
func TestWriterError(t *testing.T) {
	w := NewWriter(failWriter{})
	if n, err := w.Write([]byte("x")); n != 0 || err == nil {
		t.Errorf("Write = %d, %v; want 0 and the error", n, err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "\\\\u{1b}", "a\u202eb\U000e0041", "\xff\xc3", "❤\ufe0f\ufe0f", "\r\r\n", `\x{ff}\\`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		got := String(s)
		if !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, got)
		}
		visible := false
		for i, r := range got {
			switch {
			case r == '\r':
				if !strings.HasPrefix(got[i:], "\r\n") {
					t.Fatalf("String(%q) = %q holds a carriage return not before a newline", s, got)
				}
			case spelled(r, visible):
				t.Fatalf("String(%q) = %q holds %U raw", s, got, r)
			case r == 0x1b || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200b || r == 0xfeff || r >= 0xe0000 && r <= 0xe007f:
				t.Fatalf("String(%q) = %q holds %U raw", s, got, r)
			}
			visible = r > ' ' && (r < utf8.RuneSelf || !isSelector(r))
		}
		back, err := read(got)
		if err != nil || back != s {
			t.Fatalf("read(String(%q)) = %q, %v; want it back", s, back, err)
		}
		// Any cut of the text gives the same output.
		if len(s) > 0 {
			cut = (cut%len(s) + len(s)) % len(s)
			var b bytes.Buffer
			w := NewWriter(&b)
			w.WriteString(s[:cut])
			w.WriteString(s[cut:])
			w.Flush()
			if b.String() != got {
				t.Fatalf("Writer with a cut at %d: %q, String: %q", cut, b.String(), got)
			}
		}
	})
}

// read reverses String, by the reading the package doc gives: a run of n
// backslashes before a spelling's form stands for n/2 backslashes, and
// for odd n the last begins the spelling.
func read(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		run := j - i
		n := 0
		if j < len(s) && (s[j] == 'u' || s[j] == 'x') {
			n, _ = formLen([]byte(s[j:]))
		}
		if n == 0 {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		b.WriteString(strings.Repeat(`\`, run/2))
		i = j
		if run%2 == 0 {
			continue // the form is text
		}
		v, err := strconv.ParseUint(s[j+2:j+n-1], 16, 32)
		if err != nil {
			return "", err
		}
		if s[j] == 'x' {
			b.WriteByte(byte(v))
		} else {
			if !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("\\u{%x} is no character", v)
			}
			b.WriteRune(rune(v))
		}
		i = j + n
	}
	return b.String(), nil
}

func BenchmarkString(b *testing.B) {
	text := strings.Repeat("func main() { fmt.Println(\"héllo\\n\") }\n", 1000)
	hostile := strings.Repeat("\x1b[2J\u202e\U000e0041 text ", 1000)
	for _, bc := range []struct{ name, s string }{{"code", text}, {"hostile", hostile}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				String(bc.s)
			}
		})
	}
}

// The cost of a stream written in 4 KiB pieces, as agentsh call grep
// writes to a terminal.
func BenchmarkWriter(b *testing.B) {
	text := []byte(strings.Repeat("src/main.go:12:\tfmt.Println(\"héllo\\n\") // TODO\n", 2000))
	b.SetBytes(int64(len(text)))
	w := NewWriter(io.Discard)
	for b.Loop() {
		for p := text; len(p) > 0; {
			n := min(len(p), 4096)
			w.Write(p[:n])
			p = p[n:]
		}
		w.Flush()
	}
}
