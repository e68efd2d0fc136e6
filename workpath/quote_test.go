package workpath

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuotePath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"dir/sub/file.go", "dir/sub/file.go"},
		{"with space.txt", "with space.txt"},
		{"é ü 日本.txt", "é ü 日本.txt"},
		{`quo"te`, `quo"te`},
		{`back\slash`, `back\slash`},
		{"a\\nb", `a\nb`}, // a backslash and an n, bare: it does not start with "
		{"new\nline", `"new\nline"`},
		{"tab\there", `"tab\there"`},
		{"cr\rlf", `"cr\rlf"`},
		{"\a\b\f\v", `"\a\b\f\v"`},
		{"esc\x1b[31m", `"esc\033[31m"`},
		{"del\x7f", `"del\177"`},
		{"nul\x00", `"nul\000"`},
		{"bad\xffname", `"bad\377name"`},
		{"\xc3", `"\303"`},                         // a cut UTF-8 sequence
		{"line\u2028sep", `"line\342\200\250sep"`}, // a line separator
		{"c1\u0085", `"c1\302\205"`},               // NEL, a C1 control
		{"rlo\u202e", `"rlo\342\200\256"`},         // bidi override
		{`"leading`, `"\"leading"`},
		{`""`, `"\"\""`},
		{`"new` + "\n" + `\`, `"\"new\n\\"`},
		{"dir/new\nline/f", `"dir/new\nline/f"`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
		back := c.want
		if strings.HasPrefix(back, `"`) {
			var err error
			if back, err = Unquote(c.want); err != nil {
				t.Errorf("Unquote(%s): %v", c.want, err)
			}
		}
		if back != c.in {
			t.Errorf("%s read back as %q, want %q", c.want, back, c.in)
		}
	}
}

func TestUnquotePath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"a\x41\x4a\x4A"`, "aAJJ"},
		{`"\xff\xfe"`, "\xff\xfe"},
		{`"\x4"`, "\x04"},
		{`"\0"`, "\x00"},
		{`"\12x"`, "\nx"},
		{`"\1234"`, "S4"},
		{`"\'\?"`, "'?"},
		{`""`, ""},
		{`"日本"`, "日本"},
	} {
		got, err := Unquote(c.in)
		if err != nil || got != c.want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`"`, "does not end"},
		{`"abc`, "does not end"},
		{`"a"b"`, `unescaped " at byte 2`},
		{`"a\"`, `ends with a lone \`},
		{`"a\`, "does not end"},
		{`"\q"`, `unknown escape \q`},
		{`"\400"`, `\400 is more than \377`},
		{`"\xg"`, `\x is not followed by a hex digit`},
		{`"x"/y`, "does not end"},
	} {
		if _, err := Unquote(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Unquote(%s): %v, want an error with %q", c.in, err, c.want)
		}
	}
}

// Any name round-trips, and what is printed is one line of valid UTF-8
// that starts with " exactly when it is quoted.
func FuzzQuotePath(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", `"x`, "\xff", "日本\u2028", `\"`, "\x00\x01\x7f", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if !utf8.ValidString(q) {
			t.Fatalf("Quote(%q) = %q is not valid UTF-8", s, q)
		}
		for i := 0; i < len(q); i++ {
			if q[i] < 0x20 || q[i] == 0x7f {
				t.Fatalf("Quote(%q) = %q holds a control byte", s, q)
			}
		}
		quoted := strings.HasPrefix(q, `"`)
		if quoted != (q != s) {
			t.Fatalf("Quote(%q) = %q: starts with a quote %v, changed %v", s, q, quoted, q != s)
		}
		back, err := Unquote(QuoteAlways(s))
		if err != nil || back != s {
			t.Fatalf("QuoteAlways(%q) = %s reads back as %q, %v", s, QuoteAlways(s), back, err)
		}
	})
}
