package search

import "strings"

// wildmatch results. The two abort values let a caller stop retrying
// positions that cannot succeed; they are failures to the outside.
const (
	wmNoMatch = iota
	wmMatch
	wmAbortAll        // the text ran out: no later start can match either
	wmAbortToStarStar // a single '*' met a '/': only an enclosing "**" may go on
)

// wildmatch reports whether text matches the gitignore(5) glob pattern,
// byte by byte, with git's wildmatch semantics (no case folding):
//
//   - '\' makes the next byte literal; '?' matches one byte; '[...]' is a
//     set of bytes with ranges, '!' or '^' negation and the POSIX classes
//     [:alnum:] and friends (ASCII only);
//   - with pathname set, '*', '?' and sets never match '/', and "**" is
//     special when it is a whole path component: a leading "**/" matches
//     any number of leading directories, "/**/" zero or more directories
//     and a trailing "/**" everything below; any other "**" is a '*';
//   - without pathname, '*' matches any string.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		tc := byteAt(text, ti)
		switch pc {
		case '\\':
			// A literal next byte; a trailing '\' matches nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			var matchSlash bool
			pi++
			if pi < len(p) && p[pi] == '*' {
				before := pi - 2 // the byte before "**", if any
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (before < 0 || p[before] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && byteAt(p, pi+1) == '/')):
					// "**/" may match no directory at all.
					if pi < len(p) && p[pi] == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if pi == len(p) {
				// A trailing "**" matches everything, a trailing '*' the
				// rest of this component.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/" skips to the next '/', which the loop then consumes
				// on both sides.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue
			}
			for ti < len(text) {
				if !isGlobSpecial(p[pi]) {
					// Skip to the next occurrence of the literal that
					// follows the star.
					want := p[pi]
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != want {
						ti++
					}
					if ti >= len(text) || text[ti] != want {
						return wmNoMatch
					}
				}
				m := dowild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			r := matchSet(p, &pi, tc)
			if r != wmMatch {
				return r
			}
			if pathname && tc == '/' {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchSet matches byte c against the set that starts at p[*pi] == '['
// and leaves *pi on its closing ']'.
func matchSet(p string, pi *int, c byte) int {
	i := *pi + 1
	pc := byteAt(p, i)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		i++
		pc = byteAt(p, i)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll // unterminated set
		}
		switch {
		case pc == '\\':
			i++
			pc = byteAt(p, i)
			if pc == 0 {
				return wmAbortAll
			}
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && byteAt(p, i+1) != 0 && byteAt(p, i+1) != ']':
			i++
			pc = p[i]
			if pc == '\\' {
				i++
				pc = byteAt(p, i)
				if pc == 0 {
					return wmAbortAll
				}
			}
			if c <= pc && c >= prev {
				matched = true
			}
			pc = 0 // a range cannot start another range
		case pc == '[' && byteAt(p, i+1) == ':':
			start := i + 2
			end := start
			for end < len(p) && p[end] != ']' {
				end++
			}
			if end >= len(p) {
				return wmAbortAll
			}
			if end-start-1 < 0 || p[end-1] != ':' {
				// Not a [:class:]: a literal '['.
				if c == '[' {
					matched = true
				}
				pc = '['
				break
			}
			ok, valid := posixClass(p[start:end-1], c)
			if !valid {
				return wmAbortAll
			}
			if ok {
				matched = true
			}
			i = end
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		i++
		pc = byteAt(p, i)
		if pc == ']' {
			break
		}
	}
	*pi = i
	if matched == negated {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass reports whether c is in the named ASCII class, and whether
// the name is known.
func posixClass(name string, c byte) (in, valid bool) {
	alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	graph := c > ' ' && c < 0x7f
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return graph, true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return graph || c == ' ', true
	case "punct":
		return graph && !alpha && !digit, true
	case "space":
		return c == ' ' || c >= '\t' && c <= '\r', true
	case "upper":
		return c >= 'A' && c <= 'Z', true
	case "xdigit":
		return digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}
