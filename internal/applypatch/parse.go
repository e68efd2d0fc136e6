// Package applypatch reads patches in the apply_patch format that Codex
// models write, to say which files a patch adds, updates, moves and
// deletes. It applies nothing.
//
//	*** Begin Patch
//	*** Add File: PATH
//	+line
//	*** Update File: PATH
//	*** Move to: NEW PATH
//	@@ optional context
//	 context
//	-removed
//	+added
//	*** End of File
//	*** Delete File: PATH
//	*** End Patch
//
// It reads as leniently as Codex applies (marker lines may carry
// surrounding blanks; the patch may be wrapped in a shell here-document,
// `apply_patch <<'EOF' ... EOF`), so that no file Codex would touch is
// missed; anything it cannot read is an error, never a shorter list.
package applypatch

import (
	"fmt"
	"strings"
)

// Op is what a patch does to one file.
type Op string

const (
	Add    Op = "add"
	Update Op = "update"
	Delete Op = "delete"
)

// Change is one file operation of a patch.
type Change struct {
	Op   Op
	Path string // as written in the patch
	// MoveTo is the new path of an update that moves the file, or "".
	MoveTo string
	// Content is an added file's text.
	Content string
	// Hunks are an update's changes, in order.
	Hunks []Hunk
}

// Hunk is one change of an update: Old is replaced by New (context lines
// are in both).
type Hunk struct {
	Context  string // the text after @@, if any
	Old, New string
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File:"
	deleteFile = "*** Delete File:"
	updateFile = "*** Update File:"
	moveTo     = "*** Move to:"
	endOfFile  = "*** End of File"
)

// Parse reads a patch. Errors are lowercase and name the line.
func Parse(text string) ([]Change, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	lines = unwrap(lines)
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == beginPatch {
			start = i
			break
		}
		if strings.TrimSpace(l) != "" {
			return nil, fmt.Errorf("line %d: a patch starts with %q, got %q", i+1, beginPatch, clip(l))
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no %q line", beginPatch)
	}
	var changes []Change
	i := start + 1
	ended := false
	for i < len(lines) {
		line := strings.TrimSpace(lines[i])
		switch {
		case line == endPatch:
			ended = true
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) != "" {
					return nil, fmt.Errorf("line %d: text after %q: %q", j+1, endPatch, clip(lines[j]))
				}
			}
			i = len(lines)
		case strings.HasPrefix(line, addFile):
			c := Change{Op: Add, Path: strings.TrimSpace(line[len(addFile):])}
			i++
			var body []string
			for i < len(lines) && strings.HasPrefix(lines[i], "+") {
				body = append(body, lines[i][1:])
				i++
			}
			if len(body) > 0 {
				c.Content = strings.Join(body, "\n") + "\n"
			}
			changes = append(changes, c)
		case strings.HasPrefix(line, deleteFile):
			changes = append(changes, Change{Op: Delete, Path: strings.TrimSpace(line[len(deleteFile):])})
			i++
		case strings.HasPrefix(line, updateFile):
			c := Change{Op: Update, Path: strings.TrimSpace(line[len(updateFile):])}
			i++
			if i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), moveTo) {
				c.MoveTo = strings.TrimSpace(strings.TrimSpace(lines[i])[len(moveTo):])
				if c.MoveTo == "" {
					return nil, fmt.Errorf("line %d: a move to no path", i+1)
				}
				i++
			}
			var err error
			if c.Hunks, i, err = hunks(lines, i); err != nil {
				return nil, err
			}
			changes = append(changes, c)
		case line == "":
			i++
		default:
			return nil, fmt.Errorf("line %d: want %q, %q, %q or %q, got %q", i+1, addFile+" PATH", updateFile+" PATH", deleteFile+" PATH", endPatch, clip(lines[i]))
		}
	}
	if !ended {
		return nil, fmt.Errorf("no %q line", endPatch)
	}
	for _, c := range changes {
		if c.Path == "" {
			return nil, fmt.Errorf("an %s of a file with no path", c.Op)
		}
	}
	if len(changes) == 0 {
		return nil, fmt.Errorf("the patch changes no file")
	}
	return changes, nil
}

// hunks reads an update's hunks from lines[i:], up to the next file
// marker or the end of the patch, and returns where it stopped.
func hunks(lines []string, i int) ([]Hunk, int, error) {
	var out []Hunk
	var cur *Hunk
	var old, new []string
	flush := func() {
		if cur != nil {
			cur.Old, cur.New = joinLines(old), joinLines(new)
			out = append(out, *cur)
		}
		cur, old, new = nil, nil, nil
	}
	for ; i < len(lines); i++ {
		raw := lines[i]
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "*** ") && t != endOfFile {
			break // the next file, or the end of the patch
		}
		switch {
		case t == endOfFile:
			continue
		case strings.HasPrefix(raw, "@@"):
			flush()
			cur = &Hunk{Context: strings.TrimSpace(strings.TrimPrefix(raw, "@@"))}
			continue
		}
		if cur == nil {
			cur = &Hunk{}
		}
		switch {
		case raw == "":
			// A blank context line whose leading space was lost.
			old, new = append(old, ""), append(new, "")
		case raw[0] == ' ':
			old, new = append(old, raw[1:]), append(new, raw[1:])
		case raw[0] == '-':
			old = append(old, raw[1:])
		case raw[0] == '+':
			new = append(new, raw[1:])
		default:
			return nil, i, fmt.Errorf("line %d: a change line starts with ' ', '-' or '+', got %q", i+1, clip(raw))
		}
	}
	flush()
	return out, i, nil
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// unwrap takes the patch out of a shell here-document that carries it
// (apply_patch <<'EOF' / ... / EOF), as Codex accepts.
func unwrap(lines []string) []string {
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return lines
	}
	head := strings.TrimSpace(lines[first])
	at := strings.Index(head, "<<")
	if at < 0 {
		return lines
	}
	delim := strings.Trim(strings.TrimSpace(strings.TrimPrefix(head[at+2:], "-")), `'"`)
	if delim == "" {
		return lines
	}
	last := len(lines) - 1
	for last > first && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if strings.TrimSpace(lines[last]) != delim {
		return lines
	}
	return lines[first+1 : last]
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
