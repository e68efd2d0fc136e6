package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// What a write_file or edit_file call would change, as a unified diff for
// the approval prompt. The file is read under the working directory
// through os.Root, so a path that leaves it (by .. or a symbolic link)
// shows an error instead of another file's content.

// Bounds of the diff: a bigger file is summarized, a longer diff is cut.
const (
	maxDiffInput = 1 << 20 // bytes of the file before or after
	maxDiffLines = 200     // lines of diff shown
)

// changeDiff returns the diff of what a call of tool with args would do
// to its file, relative to dir, or ok false for a tool that changes no
// file. A change that cannot be shown (a binary file, a huge one, an edit
// that would fail) comes back as a one-line note.
func changeDiff(dir, tool string, args json.RawMessage) (text string, ok bool) {
	var a struct {
		Path       string  `json:"path"`
		Content    *string `json:"content"`
		OldString  *string `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if tool != "write_file" && tool != "edit_file" {
		return "", false
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Path == "" {
		return "", false
	}
	name := unquotePath(a.Path)
	before, size, exists, err := readUnder(dir, name)
	if err != nil {
		return fmt.Sprintf("(cannot show the change: %v)\n", err), true
	}
	if size > maxDiffInput {
		return fmt.Sprintf("(%s is %d bytes; too large to show as a diff)\n", name, size), true
	}
	var after string
	switch {
	case tool == "write_file" && a.Content != nil:
		after = *a.Content
	case tool == "edit_file" && a.OldString != nil && a.NewString != nil:
		if !exists {
			return fmt.Sprintf("(%s does not exist; the edit would fail)\n", name), true
		}
		after, err = applyEdit(before, *a.OldString, *a.NewString, a.ReplaceAll, name)
		if err != nil {
			return fmt.Sprintf("(%v)\n", err), true
		}
	default:
		return "", false
	}
	switch {
	case len(before) > maxDiffInput || len(after) > maxDiffInput:
		return fmt.Sprintf("(%s: %d bytes before, %d after; too large to show as a diff)\n", name, len(before), len(after)), true
	case isBinaryText(before) || isBinaryText(after):
		return fmt.Sprintf("(%s: binary content, %d bytes before, %d after)\n", name, len(before), len(after)), true
	case exists && before == after:
		return fmt.Sprintf("(%s would not change)\n", name), true
	}
	from := "a/" + name
	if !exists {
		from = "/dev/null"
	}
	return capLines(udiff.Unified(from, "b/"+name, before, after), maxDiffLines), true
}

// readUnder reads name under dir; a missing file is empty and exists is
// false. A file bigger than maxDiffInput is not read; size says how big.
func readUnder(dir, name string) (content string, size int64, exists bool, err error) {
	if dir == "" {
		dir = "."
	}
	if filepath.IsAbs(name) {
		absDir, err := filepath.Abs(dir)
		if err != nil {
			return "", 0, false, err
		}
		rel, err := filepath.Rel(absDir, name)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", 0, false, fmt.Errorf("%s is outside the working directory %s", name, dir)
		}
		name = rel
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", 0, false, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, false, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, false, fmt.Errorf("%s is not a regular file", name)
	}
	if st.Size() > maxDiffInput {
		return "", st.Size(), true, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDiffInput+1))
	if err != nil {
		return "", 0, false, err
	}
	return string(b), int64(len(b)), true, nil
}

// applyEdit does what edit_file would: replace old by new once (it must
// match once) or everywhere, with CRLF line ends in a CRLF file.
func applyEdit(data, old, new string, all bool, name string) (string, error) {
	if old == "" {
		return "", fmt.Errorf("old_string is empty; the edit would fail")
	}
	if strings.Contains(data, "\r\n") {
		old, new = toCRLF(old), toCRLF(new)
	}
	switch n := strings.Count(data, old); {
	case n == 0:
		return "", fmt.Errorf("old_string is not in %s; the edit would fail", name)
	case n > 1 && !all:
		return "", fmt.Errorf("old_string matches %d times in %s and replace_all is not set; the edit would fail", n, name)
	}
	return strings.ReplaceAll(data, old, new), nil
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// unquotePath takes a path the way the file tools do: bare, or quoted as
// they print it.
func unquotePath(p string) string {
	if len(p) >= 2 && p[0] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

func isBinaryText(s string) bool {
	head := s
	if len(head) > 8000 {
		head = head[:8000]
	}
	return strings.IndexByte(head, 0) >= 0
}

// capLines keeps the first max lines of text and says how many it left
// out.
func capLines(text string, max int) string {
	n, i := 0, 0
	for n < max {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return text
		}
		i += j + 1
		n++
	}
	if i >= len(text) {
		return text
	}
	rest := strings.Count(text[i:], "\n")
	if !strings.HasSuffix(text, "\n") {
		rest++
	}
	return text[:i] + fmt.Sprintf("(%d more lines of diff not shown)\n", rest)
}
