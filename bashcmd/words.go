package bashcmd

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// literal returns the value of a word that means the same whatever the
// environment: quotes and backslashes removed, and no expansion, glob
// (* ? [..]), brace expansion ({a,b} {1..3}) or tilde that names no path.
// Quoted parts take part in globs and brace expansions ({r,"m"}), so the
// positions of the unquoted [ ] { } are tracked across parts.
func literal(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	tilde := false
	bracket := -1           // position of the first unquoted '['
	var opens, closes []int // positions of unquoted '{' and '}'
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for j := 0; j < len(v); j++ {
				c := v[j]
				switch c {
				case '\\':
					if j+1 < len(v) {
						j++
						c = v[j]
					}
				case '*', '?':
					return "", false
				case '[':
					if bracket < 0 {
						bracket = sb.Len()
					}
				case '{':
					opens = append(opens, sb.Len())
				case '}':
					closes = append(closes, sb.Len())
				case '~':
					if i == 0 && j == 0 {
						tilde = true
					}
				}
				sb.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				return "", false // $'\x72m'
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	v := sb.String()
	if bracket >= 0 && strings.Contains(v[bracket+1:], "]") {
		return "", false // r[m]
	}
	for _, o := range opens {
		for _, c := range closes {
			if c > o && (strings.Contains(v[o:c], ",") || strings.Contains(v[o:c], "..")) {
				return "", false // {rm,x}
			}
		}
	}
	if tilde && !strings.Contains(v, "/") {
		return "", false // ~ or ~user: a home directory
	}
	return v, true
}

// unescape removes the backslashes before the bytes in special (a
// backslash-newline disappears).
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(special, s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// quotedDelim reports whether a here-document's delimiter is quoted (its
// body is then literal).
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// heredoc returns a here-document's body as the command reads it, when
// literal.
func heredoc(body *syntax.Word, quoted bool) (string, bool) {
	var sb strings.Builder
	for _, p := range body.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			sb.WriteString(lit.Value)
		} else {
			sb.WriteString(unescape(lit.Value, "$`\\\n"))
		}
	}
	return sb.String(), true
}

func printWord(w *syntax.Word) string {
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, w); err != nil {
		return "(a word)"
	}
	return sb.String()
}

// unquoted returns the text of a word with no expansion in it, quotes and
// backslashes removed, where globs and braces mean nothing (the operands
// of [[ ]], text a builtin reads).
func unquoted(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			sb.WriteString(unescapeAll(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				return "", false
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// unescapeAll removes the backslashes of an unquoted word: each quotes the
// byte after it, and a backslash-newline disappears.
func unescapeAll(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// expandsTilde reports whether bash expands a ~ in w to a home directory:
// an unquoted ~ at the start, or after an unquoted = or : (bash expands
// those in words that look like assignments, dd of=~/x among them; other
// words are taken as such too, which only makes them not static).
func expandsTilde(w *syntax.Word) bool {
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		v := lit.Value
		for j := 0; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '~':
				if j == 0 && i == 0 || j > 0 && (v[j-1] == '=' || v[j-1] == ':') {
					return true
				}
			}
		}
	}
	return false
}
