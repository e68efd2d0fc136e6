package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// What a write_file or edit_file call would change (core.Tool.Preview), as
// a unified diff for the person deciding whether it may run. The preview
// reads the file as the tool does — its arguments decoded by the same
// decoder, its path resolved by resolve, the file read through FileOps —
// and an edit is made by the tool's own replaceIn, so the diff is of the
// file the call would change, and a call that would fail shows the error
// it would fail with.

// Bounds of a preview: a bigger file is summarized, a longer diff is cut.
const (
	maxDiffInput = 1 << 20 // bytes of the file before or after
	maxDiffLines = 200     // lines of diff shown
)

// preview makes a core.Tool.Preview whose arguments decode into T as the
// tool's own do (see tool).
func preview[T any](name string, show func(ctx context.Context, a T) (string, error)) func(context.Context, json.RawMessage) (string, error) {
	return func(ctx context.Context, raw json.RawMessage) (string, error) {
		a, err := decodeArgs[T](name, raw)
		if err != nil {
			return "", err
		}
		return show(ctx, a)
	}
}

// previewWrite is the diff of the file a write_file call would replace
// or create.
func (x *Extension) previewWrite(ctx context.Context, a writeArgs) (string, error) {
	rel, err := x.writeTarget(a)
	if err != nil {
		return "", err
	}
	before, err := x.files.ReadFile(ctx, rel, maxDiffInput)
	var size *FileSizeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return changeDiff(rel, nil, []byte(*a.Content), false), nil
	case errors.As(err, &size) && size.Size >= 0:
		return fmt.Sprintf("(%s is %d bytes; too large to show as a diff)\n", quotePath(rel), size.Size), nil
	case errors.As(err, &size):
		return fmt.Sprintf("(%s grew past %d bytes while it was read; too large to show as a diff)\n", quotePath(rel), maxDiffInput), nil
	case err != nil:
		return "", fileError("write_file", rel, err)
	}
	return changeDiff(rel, before, []byte(*a.Content), true), nil
}

// previewEdit is the diff of the edit an edit_file call would make.
func (x *Extension) previewEdit(ctx context.Context, a editArgs) (string, error) {
	rel, err := x.editTarget(a)
	if err != nil {
		return "", err
	}
	before, err := x.files.ReadFile(ctx, rel, maxReadBytes)
	if err != nil {
		return "", fileError("edit_file", rel, err)
	}
	after, _, err := replaceIn(before, a, quotePath(rel))
	if err != nil {
		return "", err
	}
	return changeDiff(rel, before, after, true), nil
}

// changeDiff renders the change of the file rel from before to after (a
// file that does not exist yet when !exists), or a one-line note when a
// diff cannot show it: a binary or huge file, or no change at all.
func changeDiff(rel string, before, after []byte, exists bool) string {
	name := quotePath(rel)
	switch {
	case len(before) > maxDiffInput || len(after) > maxDiffInput:
		return fmt.Sprintf("(%s: %d bytes before, %d after; too large to show as a diff)\n", name, len(before), len(after))
	case isBinary(before) || isBinary(after):
		return fmt.Sprintf("(%s: binary content, %d bytes before, %d after)\n", name, len(before), len(after))
	case exists && bytes.Equal(before, after):
		return fmt.Sprintf("(%s would not change)\n", name)
	}
	from := quotePath("a/" + rel)
	if !exists {
		from = "/dev/null"
	}
	return capLines(udiff.Unified(from, quotePath("b/"+rel), string(before), string(after)), maxDiffLines)
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
