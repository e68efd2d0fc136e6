package script

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scanJSON makes b's value of the JSON text raw in one pass, or reports
// false. It accepts exactly the texts DecodeJSON decodes and builds the
// same values; what it does not accept (a syntax error, a value nested
// deeper than MaxDepth, a number beyond a float64, a value b refused) it
// leaves to the reference decoder, which words the error (see DecodeAs).
// So it needs to be right about what it accepts, and about nothing else.
//
// Measured on a tool call's arguments ({"path":"src/main.go","limit":10})
// into JSON shapes, this takes 0.94 µs and 8 allocations where
// encoding/json's Valid, then Decode into any, then a walk took 3.2 µs and
// 19 (BenchmarkDecodeAs, medians of 6); a binding's Builder saves the
// shapes as well. The tokenizer in go.mod's graph,
// github.com/go-json-experiment/json/jsontext, rejects by default the
// invalid UTF-8 and repeated keys DecodeJSON accepts and words its errors
// differently: matching DecodeJSON through it would take as much code.
func scanJSON[V any](raw []byte, b Builder[V]) (V, bool) {
	s := scanner[V]{data: raw, b: b}
	s.space()
	v, ok := s.value()
	s.space()
	if !ok || s.i != len(s.data) {
		var zero V
		return zero, false
	}
	return v, true
}

// scanner is the state of one scanJSON.
type scanner[V any] struct {
	data  []byte
	i     int
	b     Builder[V]
	depth int
}

// smallContainer is how many elements or members a container collects on
// the stack before its list of them moves to the heap; the list the
// Builder gets is allocated once at its final size.
const smallContainer = 8

type member[V any] struct {
	key string
	val V
}

// space skips JSON whitespace.
func (s *scanner[V]) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner[V]) value() (V, bool) {
	var zero V
	if s.i >= len(s.data) {
		return zero, false
	}
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		str, ok := s.str()
		if !ok {
			return zero, false
		}
		return s.b.String(str), true
	case c == 't':
		if s.literal("true") {
			return s.b.Bool(true), true
		}
	case c == 'f':
		if s.literal("false") {
			return s.b.Bool(false), true
		}
	case c == 'n':
		if s.literal("null") {
			return s.b.Null(), true
		}
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return zero, false
}

// literal consumes word (true, false, null) if it is next. What follows
// it is checked by the caller, as after any value.
func (s *scanner[V]) literal(word string) bool {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// enter opens a container; one nested deeper than MaxDepth is left to
// the reference decoder, whose error names its path.
func (s *scanner[V]) enter() bool {
	s.depth++
	s.i++ // the bracket
	s.space()
	return s.depth <= MaxDepth
}

func (s *scanner[V]) array() (V, bool) {
	var zero V
	if !s.enter() {
		return zero, false
	}
	var small [smallContainer]V
	elems := small[:0]
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
	} else {
		for {
			v, ok := s.value()
			if !ok {
				return zero, false
			}
			elems = append(elems, v)
			s.space()
			if s.i >= len(s.data) {
				return zero, false
			}
			c := s.data[s.i]
			s.i++
			if c == ']' {
				break
			}
			if c != ',' {
				return zero, false
			}
			s.space()
		}
	}
	// The Builder may keep the slice (a Starlark list does): it gets its
	// own, never nil.
	out := make([]V, len(elems))
	copy(out, elems)
	s.depth--
	return s.b.Array(out), true
}

func (s *scanner[V]) object() (V, bool) {
	var zero V
	if !s.enter() {
		return zero, false
	}
	var small [smallContainer]member[V]
	members := small[:0]
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
	} else {
		for {
			if s.i >= len(s.data) || s.data[s.i] != '"' {
				return zero, false
			}
			k, ok := s.str()
			if !ok {
				return zero, false
			}
			s.space()
			if s.i >= len(s.data) || s.data[s.i] != ':' {
				return zero, false
			}
			s.i++
			s.space()
			v, ok := s.value()
			if !ok {
				return zero, false
			}
			members = append(members, member[V]{k, v})
			s.space()
			if s.i >= len(s.data) {
				return zero, false
			}
			c := s.data[s.i]
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return zero, false
			}
			s.space()
		}
	}
	ms := sortMembers(members)
	keys := make([]string, len(ms))
	vals := make([]V, len(ms))
	for i := range ms {
		keys[i], vals[i] = ms[i].key, ms[i].val
	}
	s.depth--
	return s.b.Object(keys, vals), true
}

// sortMembers sorts an object's members by key and keeps, of a repeated
// key, the last: what a Go map holds after decoding. Members usually
// arrive sorted and unique (canonical JSON), which costs one comparison
// each.
func sortMembers[V any](ms []member[V]) []member[V] {
	sorted := true
	for i := 1; i < len(ms); i++ {
		if ms[i-1].key >= ms[i].key {
			sorted = false
			break
		}
	}
	if sorted {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b member[V]) int { return strings.Compare(a.key, b.key) })
	out := ms[:0]
	for i := range ms {
		if i+1 < len(ms) && ms[i+1].key == ms[i].key {
			continue // a later member has this key
		}
		out = append(out, ms[i])
	}
	return out
}

// number reads a JSON number: an integer that fits in an int64 is an Int,
// any other a Float, as DecodeJSON's json.Number conversion has it.
func (s *scanner[V]) number() (V, bool) {
	var zero V
	start := s.i
	d := s.data
	i := s.i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	default:
		return zero, false
	}
	integral := true
	if i < len(d) && d[i] == '.' {
		integral = false
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return zero, false
		}
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integral = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return zero, false
		}
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	}
	s.i = i
	text := d[start:i]
	if integral {
		if n, ok := smallInt(text); ok {
			return s.intValue(n)
		}
		if n, err := strconv.ParseInt(bytesString(text), 10, 64); err == nil {
			return s.intValue(n)
		}
	}
	f, err := strconv.ParseFloat(bytesString(text), 64)
	if err != nil {
		return zero, false // beyond a float64: the reference decoder says so
	}
	v, err := s.b.Float(f)
	return v, err == nil
}

func (s *scanner[V]) intValue(n int64) (V, bool) {
	v, err := s.b.Int(n)
	return v, err == nil
}

// smallInt parses an integer of at most 18 digits, which cannot overflow.
func smallInt(text []byte) (int64, bool) {
	neg := text[0] == '-'
	digits := text
	if neg {
		digits = text[1:]
	}
	if len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// bytesString is b as a string without a copy, for parsing it where the
// string does not outlive b.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// str reads a JSON string. Text without escapes that is valid UTF-8 is
// copied as it is; the rest goes the way encoding/json unquotes it.
func (s *scanner[V]) str() (string, bool) {
	d := s.data
	start := s.i + 1
	for i := start; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return string(d[start:i]), true
		case c == '\\', c < ' ':
			return s.unquote(start, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return s.unquote(start, i)
			}
			i += size
		}
	}
	return "", false
}

// unquote reads the rest of a string that needs more than a copy, from
// i, its text from start to i being plain: escapes are decoded, and
// each byte that is not part of valid UTF-8, and each \u escape of a
// surrogate that is not half of a pair, becomes U+FFFD.
func (s *scanner[V]) unquote(start, i int) (string, bool) {
	d := s.data
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return string(buf), true
		case c < ' ':
			return "", false
		case c == '\\':
			if i+1 >= len(d) {
				return "", false
			}
			i++
			switch d[i] {
			case '"', '\\', '/':
				buf = append(buf, d[i])
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r := hex4(d[i+1:])
				if r < 0 {
					return "", false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if len(d) > i+2 && d[i+1] == '\\' && d[i+2] == 'u' {
						if r2 := hex4(d[i+3:]); r2 >= 0 {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								buf = utf8.AppendRune(buf, dec)
								i += 7
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", false
			}
			i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			buf = utf8.AppendRune(buf, r) // U+FFFD for a byte that is not UTF-8
			i += size
		}
	}
	return "", false
}

// hex4 is the value of the four hex digits that start b, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
