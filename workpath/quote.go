package workpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// How paths are printed. Every tool prints a path bare unless it needs
// quoting; then it prints it as a double-quoted C string, as
// ls --quoting-style=c does: \a \b \t \n \v \f \r \" \\ for those
// characters and \ooo (three octal digits) for every other byte of a
// control character, a character that does not print, or a byte that is
// not valid UTF-8. A path needs quoting if it holds any of these or starts
// with a double quote, so a printed path starts with " exactly when it is
// quoted, and one path is always one line. Every tool that takes a path
// accepts the quoted form back and unquotes it (\xHH is accepted too).

// Quote renders p for output: bare if it can be, quoted if not.
func Quote(p string) string {
	if !NeedsQuoting(p) {
		return p
	}
	return QuoteAlways(p)
}

// NeedsQuoting reports whether Quote would quote p.
func NeedsQuoting(p string) bool {
	if strings.HasPrefix(p, `"`) {
		return true
	}
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// QuoteAlways renders p quoted, for messages that quote every path.
func QuoteAlways(p string) string {
	var b strings.Builder
	b.Grow(len(p) + 2)
	b.WriteByte('"')
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeOctal(&b, p[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r < 0x20 || r == 0x7f:
			if r < 0x20 && cEscapes[r] != 0 {
				b.WriteByte('\\')
				b.WriteByte(cEscapes[r])
			} else {
				writeOctal(&b, byte(r))
			}
		case r >= utf8.RuneSelf && !strconv.IsPrint(r):
			for j := range size {
				writeOctal(&b, p[i+j])
			}
		default:
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// cEscapes maps control characters to their letter escapes.
var cEscapes = [0x20]byte{'\a': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\v': 'v', '\f': 'f', '\r': 'r'}

func writeOctal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// Unquote reverses QuoteAlways. q must be one double-quoted string;
// the result may hold any bytes, valid UTF-8 or not.
func Unquote(q string) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", errors.New(`it starts with " but does not end with one`)
	}
	s := q[1 : len(q)-1]
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return "", fmt.Errorf(`an unescaped " at byte %d (write \")`, i+1)
		case '\\':
		default:
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", errors.New(`it ends with a lone \ (write \\)`)
		}
		switch e := s[i]; {
		case e == '"' || e == '\\' || e == '\'' || e == '?':
			b.WriteByte(e)
		case strings.IndexByte("abtnvfr", e) >= 0:
			b.WriteByte(cUnescapes[e])
		case '0' <= e && e <= '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			if v > 0xff {
				return "", fmt.Errorf(`octal escape \%s is more than \377`, s[i:i+n])
			}
			b.WriteByte(byte(v))
			i += n - 1
		case e == 'x':
			v, n := 0, 0
			for n < 2 && i+1+n < len(s) && isHex(s[i+1+n]) {
				v = v*16 + unhex(s[i+1+n])
				n++
			}
			if n == 0 {
				return "", errors.New(`\x is not followed by a hex digit`)
			}
			b.WriteByte(byte(v))
			i += n
		default:
			return "", fmt.Errorf(`unknown escape \%c`, e)
		}
	}
	return b.String(), nil
}

var cUnescapes = map[byte]byte{'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r'}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}
