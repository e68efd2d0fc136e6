// Package termsafe makes text that a model, a tool or a script wrote safe
// to show on a terminal: nothing in it can act on the terminal (move the
// cursor, clear the screen, set the clipboard, conceal or reorder text),
// and nothing in it is invisible.
//
// Such characters are spelled out as \u{H}, their code point in lowercase
// hex without leading zeros — \u{1b} for ESC, \u{202e} for RIGHT-TO-LEFT
// OVERRIDE, \u{e0041} for TAG LATIN CAPITAL LETTER A — and a byte that is
// not part of valid UTF-8 as \x{HH}, such as \x{ff}. Spelled out are:
//
//   - control characters (C0, DEL and C1), except tab, newline, and a
//     carriage return right before a newline. ESC is spelled, so no escape
//     sequence (CSI, OSC, DCS, ...) can start: the rest of a sequence shows
//     as the text it is, \u{1b}]52;c;Y3VybA==\u{7};
//   - format characters (Unicode category Cf): the bidirectional controls,
//     zero-width space, non-joiner and joiner, word joiner, the byte order
//     mark, the soft hyphen, the tag characters, ...;
//   - the line and paragraph separators U+2028 and U+2029;
//   - variation selectors, except U+FE0E and U+FE0F right after a visible
//     character (they choose its text or emoji presentation);
//   - the other default-ignorable code points (Hangul fillers, the
//     combining grapheme joiner, ...) and the whole block U+E0000–U+E0FFF.
//
// The spelling has one reading. A run of backslashes right before a
// spelled character, or before text of the form u{H…} (1 to 6 hex
// digits) or x{HH}, is doubled. Read back, a run of n backslashes before
// such a form stands for n/2 backslashes (rounded down), and when n is odd
// the last one begins the spelling; any other backslash is itself. So
// C:\dir and the text "\x1b" show as they are, and text that holds \u{1b}
// as six characters shows as \\u{1b}.
package termsafe

import (
	"io"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"
)

// String returns s with every character that could act on a terminal or
// hide spelled out. It is safe to call concurrently.
func String(s string) string {
	if plain(s) {
		return s
	}
	var e encoder
	return string(e.encode(make([]byte, 0, len(s)+16), []byte(s), true))
}

// plain reports whether s shows as itself whatever follows it.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !shows(s[i]) {
			return false
		}
	}
	return true
}

// Writer spells out what is written to it (see String) and writes the
// result to the writer it wraps. It holds back at most a few bytes at the
// end of a Write — an incomplete UTF-8 character, a carriage return, or up
// to nine bytes that may be a spelling's form — until the next Write or
// Flush decides them, so a character or an escape sequence cut between
// two writes is spelled out all the same: the output is the same however
// the text is cut. A Writer is safe for concurrent use; each Write is
// spelled out whole.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	enc encoder
	buf []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write spells out p and writes it. It returns len(p), or 0 and the error
// of the wrapped writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = w.enc.encode(w.buf[:0], p, false)
	if err := w.flushBuf(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write of a string.
func (w *Writer) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush ends the text: what was held back is written as the end of a
// text is (an incomplete character's bytes spelled out one by one). What
// is written next starts a new text.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = w.enc.encode(w.buf[:0], nil, true)
	return w.flushBuf()
}

func (w *Writer) flushBuf() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > 64<<10 {
		w.buf = nil // one huge write does not pin its buffer
	}
	return err
}

// encoder spells out a stream of text (see the package doc).
type encoder struct {
	held []byte // the end of the last input, not decided yet
	// slashes is how many backslashes in a row were written last; they
	// are written again (doubled) when a spelling's form follows.
	slashes int
	// visible says the last character was shown as itself and draws a
	// glyph, which a presentation selector may follow.
	visible bool
}

// maxForm is the longest text a backslash run may need to see before it
// is decided: u{ and six hex digits and }.
const maxForm = 9

// encode appends the spelling of in to dst. Unless final, it holds back
// an undecided end of in for the next call.
func (e *encoder) encode(dst, in []byte, final bool) []byte {
	if len(e.held) > 0 {
		in = append(e.held, in...)
		e.held = nil
	}
	for i := 0; i < len(in); {
		if j := plainRun(in[i:]); j > 0 && e.slashes == 0 {
			dst = append(dst, in[i:i+j]...)
			e.slashes = 0
			e.visible = in[i+j-1] > ' '
			i += j
			continue
		}
		c := in[i]
		if c == '\\' {
			dst = append(dst, c)
			e.slashes++
			e.visible = true
			i++
			continue
		}
		if e.slashes > 0 && (c == 'u' || c == 'x') {
			n, decided := formLen(in[i:])
			if !decided && !final {
				e.held = append([]byte(nil), in[i:]...)
				return dst
			}
			if n > 0 {
				dst = e.double(dst)
			}
			e.slashes = 0
			dst = append(dst, c)
			e.visible = true
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			if !final && !utf8.FullRune(in[i:]) {
				e.held = append([]byte(nil), in[i:]...)
				return dst
			}
			r, size = utf8.DecodeRune(in[i:])
		}
		if c == '\r' {
			if i+1 == len(in) && !final {
				e.held = append(e.held[:0], c)
				return dst
			}
			if i+1 < len(in) && in[i+1] == '\n' {
				dst = append(dst, c)
				e.slashes, e.visible = 0, false
				i++
				continue
			}
		}
		switch {
		case r == utf8.RuneError && size == 1:
			dst = e.double(dst)
			dst = append(dst, `\x{`...)
			dst = appendHex2(dst, c)
			dst = append(dst, '}')
			e.visible = false
		case spelled(r, e.visible):
			dst = e.double(dst)
			dst = append(dst, `\u{`...)
			dst = strconv.AppendUint(dst, uint64(r), 16)
			dst = append(dst, '}')
			e.visible = false
		default:
			dst = append(dst, in[i:i+size]...)
			e.visible = r > ' ' && (r < utf8.RuneSelf || unicode.IsGraphic(r) && !unicode.IsSpace(r) && !isSelector(r))
		}
		e.slashes = 0
		i += size
	}
	return dst
}

// double writes the run of backslashes just written once more, so that
// it does not read as the start of what follows.
func (e *encoder) double(dst []byte) []byte {
	for ; e.slashes > 0; e.slashes-- {
		dst = append(dst, '\\')
	}
	return dst
}

// formLen looks at b, which starts with u or x after a backslash, and
// returns the length of the spelling's form it starts (u{H…} with 1 to 6
// hex digits, or x{HH}), or 0 when it starts none. decided is false when
// b ends before that is known.
func formLen(b []byte) (n int, decided bool) {
	digits := 6
	if b[0] == 'x' {
		digits = 2
	}
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '{' {
		return 0, true
	}
	for i := 2; i < len(b); i++ {
		switch {
		case b[i] == '}' && i > 2 && (digits == 6 || i == 4):
			return i + 1, true
		case !isHex(b[i]) || i-2 == digits:
			return 0, true
		}
	}
	return 0, false
}

// plainRun is how many bytes at the start of b show as themselves
// whatever follows.
func plainRun(b []byte) int {
	for i, c := range b {
		if !shows(c) {
			return i
		}
	}
	return len(b)
}

// shows reports whether the byte c shows as itself whatever surrounds
// it: printable ASCII but the backslash, tab and newline.
func shows(c byte) bool {
	return c >= ' ' && c < 0x7f && c != '\\' || c == '\t' || c == '\n'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func appendHex2(dst []byte, c byte) []byte {
	const digits = "0123456789abcdef"
	return append(dst, digits[c>>4], digits[c&0xf])
}

// spelled reports whether r is spelled out; visible says the character
// before it was shown and draws a glyph. Tab, newline and carriage return
// are the caller's.
func spelled(r rune, visible bool) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r < 0x7f:
		return false
	case r < 0xa0:
		return true // DEL and C1
	case r == 0xfe0e || r == 0xfe0f:
		return !visible
	case r >= 0xe0000 && r <= 0xe0fff:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

func isSelector(r rune) bool { return unicode.Is(unicode.Variation_Selector, r) }
