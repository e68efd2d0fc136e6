package core

import (
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// A subset is a parameter schema that uses only the keywords most tool
// schemas use (type, properties, required, additionalProperties, items,
// enum of strings, integer bounds, lengths, pattern and annotations),
// checked straight on the JSON text of the arguments: no decoding into
// `any`, no allocation. It only ever answers "valid for certain"; anything
// else (a violation, or a value it does not judge, such as 1.0 for an
// integer or a string with escapes under a length limit) goes to the full
// validator, which also writes the messages. So the messages and the
// verdicts stay the library's, and the subset must only never accept what
// the library refuses.
//
// Measured (BenchmarkValidate, a two-property call): the library decodes
// into `any` and checks integers through big.Rat, 5–7 µs and 45
// allocations on a loaded machine; the subset 0.12–0.19 µs and none.
//
// buildSubset also accepts only keyword values that the draft 2020-12
// meta-schema accepts, so a schema it accepts compiles: its compilation
// (most of the cost of registering a tool) can wait until a call first
// needs the full validator.
type subset struct {
	never bool  // the schema false
	types uint8 // typeBits allowed; 0: any

	props    map[string]subsetProp // properties and required names
	required int                   // how many required names
	noExtra  bool                  // additionalProperties: false
	extra    *subset               // additionalProperties schema; nil: any

	items              *subset // nil: any
	minItems, maxItems int     // -1: none

	enum               []string // nil: none
	minLen, maxLen     int      // -1: none
	pattern            *regexp.Regexp
	min, max           int64
	exclMin, exclMax   int64
	hasMin, hasMax     bool
	hasExMin, hasExMax bool
}

// subsetProp is what an object key means to its schema.
type subsetProp struct {
	schema   *subset // nil: not in properties (additional)
	declared bool    // in properties
	req      int     // bit of the required mask; -1: not required
}

const (
	typeNull = 1 << iota
	typeBoolean
	typeInteger // an integer literal; also a number
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{"null": typeNull, "boolean": typeBoolean, "integer": typeInteger,
	"number": typeNumber, "string": typeString, "array": typeArray, "object": typeObject}

// anything is the schema true, and what keys without a schema get.
var anything = &subset{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}

// maxRequired is the most required names a subset tracks (one mask bit each).
const maxRequired = 64

// maxSubsetDepth is how deep the subset follows nested values, as
// encoding/json does; deeper input goes to the full validator.
const maxSubsetDepth = 10000

// buildSubset returns the subset for a decoded schema (numbers as
// json.Number), or nil if the schema uses anything else.
func buildSubset(v any) *subset {
	switch v := v.(type) {
	case bool:
		if v {
			return anything
		}
		return &subset{never: true}
	case map[string]any:
		return buildSubsetObject(v)
	}
	return nil
}

func buildSubsetObject(m map[string]any) *subset {
	s := &subset{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	var required []string
	var props map[string]any
	for k, v := range m {
		ok := true
		switch k {
		case "type":
			s.types, ok = subsetTypes(v)
		case "properties":
			props, ok = v.(map[string]any)
		case "required":
			required, ok = uniqueStrings(v)
			ok = ok && len(required) <= maxRequired
		case "additionalProperties":
			switch v := v.(type) {
			case bool:
				s.noExtra = !v
			default:
				s.extra = buildSubset(v)
				ok = s.extra != nil
			}
		case "items":
			s.items = buildSubset(v)
			ok = s.items != nil
		case "enum":
			s.enum, ok = enumStrings(v)
		case "minimum":
			s.min, ok = int64Keyword(v)
			s.hasMin = true
		case "maximum":
			s.max, ok = int64Keyword(v)
			s.hasMax = true
		case "exclusiveMinimum":
			s.exclMin, ok = int64Keyword(v)
			s.hasExMin = true
		case "exclusiveMaximum":
			s.exclMax, ok = int64Keyword(v)
			s.hasExMax = true
		case "minLength":
			s.minLen, ok = countKeyword(v)
		case "maxLength":
			s.maxLen, ok = countKeyword(v)
		case "minItems":
			s.minItems, ok = countKeyword(v)
		case "maxItems":
			s.maxItems, ok = countKeyword(v)
		case "pattern":
			var p string
			if p, ok = v.(string); ok {
				var err error
				s.pattern, err = regexp.Compile(p)
				ok = err == nil
			}
		case "title", "description", "$comment":
			_, ok = v.(string)
		case "deprecated", "readOnly", "writeOnly":
			_, ok = v.(bool)
		case "examples":
			_, ok = v.([]any)
		case "default":
		default:
			ok = false
		}
		if !ok {
			return nil
		}
	}
	if len(props) > 0 || len(required) > 0 {
		s.props = make(map[string]subsetProp, len(props)+len(required))
		for name, ps := range props {
			sub := buildSubset(ps)
			if sub == nil {
				return nil
			}
			s.props[name] = subsetProp{schema: sub, declared: true, req: -1}
		}
		for i, name := range required {
			p := s.props[name]
			p.req = i
			s.props[name] = p
		}
		s.required = len(required)
	}
	return s
}

func subsetTypes(v any) (uint8, bool) {
	if name, ok := v.(string); ok {
		bit, ok := typeBits[name]
		return bit, ok
	}
	names, ok := uniqueStrings(v)
	if !ok || len(names) == 0 {
		return 0, false
	}
	var bits uint8
	for _, n := range names {
		bit, ok := typeBits[n]
		if !ok {
			return 0, false
		}
		bits |= bit
	}
	return bits, true
}

func uniqueStrings(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || seen[s] {
			return nil, false
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, true
}

func enumStrings(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// int64Keyword accepts a bound written as an integer literal.
func int64Keyword(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// countKeyword accepts a length or count written as a non-negative
// integer literal.
func countKeyword(v any) (int, bool) {
	i, ok := int64Keyword(v)
	if !ok || i < 0 || i > 1<<31 {
		return 0, false
	}
	return int(i), true
}

// accepts reports whether args is certainly a valid JSON value that
// satisfies s. false means "ask the full validator".
func (s *subset) accepts(args []byte) bool {
	sc := subsetScan{b: args}
	sc.space()
	if !sc.value(s) {
		return false
	}
	sc.space()
	return sc.i == len(sc.b)
}

// subsetScan walks JSON text. Its methods return false as soon as the
// text is not valid JSON or a value is not certainly valid.
type subsetScan struct {
	b     []byte
	i     int
	depth int
}

func (sc *subsetScan) space() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

func (sc *subsetScan) value(s *subset) bool {
	if s.never || sc.i >= len(sc.b) {
		return false
	}
	var kind uint8
	switch c := sc.b[sc.i]; {
	case c == '{':
		if !s.allows(typeObject) || s.enum != nil {
			return false
		}
		return sc.object(s)
	case c == '[':
		if !s.allows(typeArray) || s.enum != nil {
			return false
		}
		return sc.array(s)
	case c == '"':
		if !s.allows(typeString) {
			return false
		}
		return sc.stringValue(s)
	case c == 't':
		kind = typeBoolean
		if !sc.literal("true") {
			return false
		}
	case c == 'f':
		kind = typeBoolean
		if !sc.literal("false") {
			return false
		}
	case c == 'n':
		kind = typeNull
		if !sc.literal("null") {
			return false
		}
	case c == '-' || c >= '0' && c <= '9':
		return sc.number(s)
	default:
		return false
	}
	return s.allows(kind) && s.enum == nil
}

func (s *subset) allows(kind uint8) bool { return s.types == 0 || s.types&kind != 0 }

func (sc *subsetScan) literal(word string) bool {
	if len(sc.b)-sc.i < len(word) || string(sc.b[sc.i:sc.i+len(word)]) != word {
		return false
	}
	sc.i += len(word)
	return true
}

func (sc *subsetScan) object(s *subset) bool {
	if sc.depth++; sc.depth > maxSubsetDepth {
		return false
	}
	sc.i++ // {
	var seen uint64
	sc.space()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		sc.i++
	} else {
		for {
			if sc.i >= len(sc.b) || sc.b[sc.i] != '"' {
				return false
			}
			key, escaped, high, ok := sc.str()
			// A key with escapes or bad UTF-8 decodes to other bytes than
			// it is written with: the full validator judges it.
			if !ok || escaped || high && !utf8.Valid(key) {
				return false
			}
			sc.space()
			if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
				return false
			}
			sc.i++
			sc.space()
			sub := anything
			p, found := s.props[string(key)]
			switch {
			case found && p.declared:
				sub = p.schema
			case s.noExtra:
				return false
			case s.extra != nil:
				sub = s.extra
			}
			if found && p.req >= 0 {
				seen |= 1 << p.req
			}
			if !sc.value(sub) {
				return false
			}
			sc.space()
			if sc.i >= len(sc.b) {
				return false
			}
			c := sc.b[sc.i]
			sc.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return false
			}
			sc.space()
		}
	}
	sc.depth--
	return s.required == 0 || seen == 1<<s.required-1
}

func (sc *subsetScan) array(s *subset) bool {
	if sc.depth++; sc.depth > maxSubsetDepth {
		return false
	}
	sc.i++ // [
	items := s.items
	if items == nil {
		items = anything
	}
	n := 0
	sc.space()
	if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
		sc.i++
	} else {
		for {
			if !sc.value(items) {
				return false
			}
			n++
			sc.space()
			if sc.i >= len(sc.b) {
				return false
			}
			c := sc.b[sc.i]
			sc.i++
			if c == ']' {
				break
			}
			if c != ',' {
				return false
			}
			sc.space()
		}
	}
	sc.depth--
	return (s.minItems < 0 || n >= s.minItems) && (s.maxItems < 0 || n <= s.maxItems)
}

// str reads a string at sc.i and returns its bytes between the quotes,
// whether it has escapes and whether it has non-ASCII bytes.
func (sc *subsetScan) str() (raw []byte, escaped, high, ok bool) {
	start := sc.i + 1
	for i := start; i < len(sc.b); i++ {
		switch c := sc.b[i]; {
		case c == '"':
			sc.i = i + 1
			return sc.b[start:i], escaped, high, true
		case c == '\\':
			escaped = true
			i++
			if i >= len(sc.b) {
				return nil, false, false, false
			}
			switch sc.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(sc.b) {
					return nil, false, false, false
				}
				for _, h := range sc.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false, false
					}
				}
				i += 4
			default:
				return nil, false, false, false
			}
		case c < 0x20:
			return nil, false, false, false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return nil, false, false, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func (sc *subsetScan) stringValue(s *subset) bool {
	raw, escaped, high, ok := sc.str()
	if !ok {
		return false
	}
	if s.enum == nil && s.pattern == nil && s.minLen < 0 && s.maxLen < 0 {
		return true
	}
	// Checks of the content need the decoded string: without escapes and
	// with valid UTF-8 it is the raw bytes. (Bad UTF-8 decodes to one
	// U+FFFD per bad byte, which utf8.RuneCount also counts as one.)
	if escaped || (s.enum != nil || s.pattern != nil) && high && !utf8.Valid(raw) {
		return false
	}
	if s.minLen >= 0 || s.maxLen >= 0 {
		n := utf8.RuneCount(raw)
		if s.minLen >= 0 && n < s.minLen || s.maxLen >= 0 && n > s.maxLen {
			return false
		}
	}
	if s.pattern != nil && !s.pattern.Match(raw) {
		return false
	}
	if s.enum != nil {
		for _, e := range s.enum {
			if e == string(raw) {
				return true
			}
		}
		return false
	}
	return true
}

func (sc *subsetScan) number(s *subset) bool {
	start := sc.i
	i := sc.i
	if sc.b[i] == '-' {
		i++
	}
	switch {
	case i < len(sc.b) && sc.b[i] == '0':
		i++
	case i < len(sc.b) && sc.b[i] >= '1' && sc.b[i] <= '9':
		for i < len(sc.b) && sc.b[i] >= '0' && sc.b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	integer := true
	if i < len(sc.b) && sc.b[i] == '.' {
		integer = false
		i++
		if !digits(sc.b, &i) {
			return false
		}
	}
	if i < len(sc.b) && (sc.b[i] == 'e' || sc.b[i] == 'E') {
		integer = false
		i++
		if i < len(sc.b) && (sc.b[i] == '+' || sc.b[i] == '-') {
			i++
		}
		if !digits(sc.b, &i) {
			return false
		}
	}
	sc.i = i
	if s.enum != nil {
		return false
	}
	// 1.0 and 1e2 are integers too, but the full validator judges them.
	if s.types != 0 && s.types&typeNumber == 0 && (s.types&typeInteger == 0 || !integer) {
		return false
	}
	if !s.hasMin && !s.hasMax && !s.hasExMin && !s.hasExMax {
		return true
	}
	if !integer {
		return false
	}
	n, ok := parseInt64(sc.b[start:i])
	if !ok {
		return false
	}
	return (!s.hasMin || n >= s.min) && (!s.hasMax || n <= s.max) &&
		(!s.hasExMin || n > s.exclMin) && (!s.hasExMax || n < s.exclMax)
}

// parseInt64 parses an integer literal (-?[0-9]+) that fits an int64.
func parseInt64(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n uint64
	for _, c := range b {
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// digits reads one or more decimal digits at *i.
func digits(b []byte, i *int) bool {
	start := *i
	for *i < len(b) && b[*i] >= '0' && b[*i] <= '9' {
		*i++
	}
	return *i > start
}
