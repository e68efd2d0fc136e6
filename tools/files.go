package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// Defaults of read_file.
const (
	defaultReadLines = 2000
	// maxReadBytes bounds the files read_file and edit_file read and the
	// content write_file writes; larger ones are refused.
	maxReadBytes = 64 << 20
	// maxOutputBytes bounds what read_file, grep and glob print in one
	// call; a longer page stops early and says how to go on.
	maxOutputBytes = 64 << 20
)

func init() {
	toolBuilders["read_file"] = (*Extension).readFileTool
	toolBuilders["write_file"] = (*Extension).writeFileTool
	toolBuilders["edit_file"] = (*Extension).editFileTool
}

type readArgs struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
	Limit  *int   `json:"limit"`
}

// imageTypes are the image formats read_file returns as an image block.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

func (x *Extension) readFileTool() core.Tool {
	return tool("read_file",
		"Reads a text file of up to 64 MiB with line numbers (or an image as an image block). offset is the 1-based first line, limit the number of lines (default 2000).",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory, bare or quoted as the tools print it"},`+
			`"offset":{"type":"integer","minimum":1,"description":"first line to show, 1-based (default 1)"},`+
			`"limit":{"type":"integer","minimum":1,"description":"number of lines to show (default 2000)"}},`+
			`"required":["path"],"additionalProperties":false}`,
		safe, true, x.readFile)
}

func (x *Extension) readFile(ctx context.Context, a readArgs) (any, error) {
	rel, err := x.resolve(a.Path)
	if err != nil {
		return nil, err
	}
	data, err := x.files.ReadFile(ctx, rel, maxReadBytes)
	if err != nil {
		return nil, fileError("read_file", rel, err)
	}
	name := quotePath(rel)
	if mime := http.DetectContentType(data); imageTypes[mime] {
		return imageOutput{core.BlockOutput{
			Text:   fmt.Sprintf("[image %s: %s, %d bytes]", name, mime, len(data)),
			Blocks: []core.Block{{Type: "image", MIMEType: mime, Data: data}},
		}, map[string]any{"path": name, "mime_type": mime, "size": int64(len(data))}}, nil
	}
	if isBinary(data) {
		return nil, fmt.Errorf("%s is a binary file (%d bytes); read_file shows text and images only", name, len(data))
	}
	offset, limit := 1, defaultReadLines
	if a.Offset != nil {
		offset = *a.Offset
	}
	if a.Limit != nil {
		limit = *a.Limit
	}
	if offset < 1 || limit < 1 {
		return nil, fmt.Errorf("read_file: got offset %d and limit %d, want both 1 or more", offset, limit)
	}
	if len(data) == 0 {
		return core.DataOutput{Text: fmt.Sprintf("[%s is empty]", name), Data: readData(name, offset, []any{}, 0, 0)}, nil
	}
	return numberLines(ctx, data, name, offset, limit)
}

// imageOutput is an image block with read_file's data about it.
type imageOutput struct {
	core.BlockOutput
	data map[string]any
}

func (o imageOutput) ToolData() any { return o.data }

var (
	_ core.BlockCarrier = imageOutput{}
	_ core.DataCarrier  = imageOutput{}
)

// readData is read_file's result for scripts: the lines shown (without
// numbers, cut as shown), the first one's number, the file's number of
// lines, and the offset of the next page (None at the end).
func readData(name string, offset int, lines []any, last, total int) map[string]any {
	d := map[string]any{"path": name, "offset": int64(offset), "lines": lines, "total": int64(total),
		"truncated": last < total, "next_offset": nil}
	if last < total {
		d["next_offset"] = int64(last + 1)
	}
	return d
}

// numberLines renders lines offset to offset+limit-1 of data with their
// numbers. It works on data in place (a file of newlines has as many
// lines as bytes) and stops the page early, with a note where to go on,
// when the page would pass maxOutputBytes.
func numberLines(ctx context.Context, data []byte, name string, offset, limit int) (any, error) {
	total := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		total++
	}
	if offset > total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, name, total)
	}
	rest := data
	for range offset - 1 {
		rest = rest[bytes.IndexByte(rest, '\n')+1:]
	}
	end := min(offset-1+limit, total)
	var b strings.Builder
	lines := make([]any, 0, min(end-offset+1, 1<<16))
	n := offset
	for ; n <= end; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		}
		text := cutLine(strings.TrimRight(string(line), "\r\n"), maxLineChars)
		if b.Len()+len(text) > maxOutputBytes && n > offset {
			break
		}
		num := strconv.Itoa(n)
		b.WriteString("      "[min(len(num), 6):])
		b.WriteString(num)
		b.WriteByte('\t')
		b.WriteString(text)
		b.WriteByte('\n')
		lines = append(lines, text)
	}
	last := n - 1
	if last < total {
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; continue with offset %d]\n", offset, last, total, last+1)
	}
	return core.DataOutput{Text: b.String(), Data: readData(name, offset, lines, last, total)}, nil
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (x *Extension) writeFileTool() core.Tool {
	t := tool("write_file",
		"Writes a file of up to 64 MiB atomically, replacing what was there and creating parent directories. An existing file keeps its mode.",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory, bare or quoted as the tools print it"},`+
			`"content":{"type":"string","description":"the whole new content"}},`+
			`"required":["path","content"],"additionalProperties":false}`,
		unsafe, true, x.writeFile)
	t.Preview = preview("write_file", x.previewWrite)
	return t
}

func (x *Extension) writeFile(ctx context.Context, a writeArgs) (any, error) {
	rel, err := x.writeTarget(a)
	if err != nil {
		return nil, err
	}
	if err := x.files.WriteFile(ctx, rel, []byte(*a.Content)); err != nil {
		return nil, fileError("write_file", rel, err)
	}
	name := quotePath(rel)
	return core.DataOutput{Text: fmt.Sprintf("wrote %d bytes to %s", len(*a.Content), name),
		Data: map[string]any{"path": name, "bytes": int64(len(*a.Content))}}, nil
}

// writeTarget checks a write_file call's arguments and returns the path
// it writes, relative to the working directory.
func (x *Extension) writeTarget(a writeArgs) (string, error) {
	if a.Content == nil {
		return "", fmt.Errorf("write_file: content is required (use \"\" for an empty file)")
	}
	rel, err := x.resolve(a.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("write_file: path %s is the working directory itself; name a file", quoteAlways(a.Path))
	}
	if n := len(*a.Content); n > maxReadBytes {
		return "", fmt.Errorf("write_file: content is %d bytes, more than the limit of %d; nothing was written. Write a smaller file, or several", n, maxReadBytes)
	}
	return rel, nil
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (x *Extension) editFileTool() core.Tool {
	t := tool("edit_file",
		"Replaces an exact string in a file of up to 64 MiB. old_string must match exactly once unless replace_all is set; otherwise nothing changes. CRLF files stay CRLF.",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory, bare or quoted as the tools print it"},`+
			`"old_string":{"type":"string","description":"the exact text to replace"},`+
			`"new_string":{"type":"string","description":"the replacement"},`+
			`"replace_all":{"type":"boolean","description":"replace every occurrence (default false)"}},`+
			`"required":["path","old_string","new_string"],"additionalProperties":false}`,
		unsafe, false, x.editFile)
	t.Preview = preview("edit_file", x.previewEdit)
	return t
}

func (x *Extension) editFile(ctx context.Context, a editArgs) (any, error) {
	rel, err := x.editTarget(a)
	if err != nil {
		return nil, err
	}
	name := quotePath(rel)
	n := 0
	var refused error // an error of the edit itself, returned as it is
	err = x.files.EditFile(ctx, rel, maxReadBytes, func(data []byte) ([]byte, error) {
		out, count, err := replaceIn(data, a, name)
		n, refused = count, err
		return out, err
	})
	if err != nil {
		if refused != nil && errors.Is(err, refused) {
			return nil, refused
		}
		return nil, fileError("edit_file", rel, err)
	}
	data := map[string]any{"path": name, "replacements": int64(n)}
	if n == 1 {
		return core.DataOutput{Text: fmt.Sprintf("replaced 1 occurrence in %s", name), Data: data}, nil
	}
	return core.DataOutput{Text: fmt.Sprintf("replaced %d occurrences in %s", n, name), Data: data}, nil
}

// editTarget checks an edit_file call's arguments and returns the path
// it edits, relative to the working directory.
func (x *Extension) editTarget(a editArgs) (string, error) {
	rel, err := x.resolve(a.Path)
	if err != nil {
		return "", err
	}
	if a.OldString == "" {
		return "", fmt.Errorf("edit_file: old_string is empty; use write_file to create or replace a whole file")
	}
	if a.OldString == a.NewString {
		return "", fmt.Errorf("edit_file: old_string and new_string are the same; nothing would change")
	}
	return rel, nil
}

// replaceIn makes the edit a asks for in data and returns the result and
// the number of replacements. name is the file's name for messages.
func replaceIn(data []byte, a editArgs, name string) ([]byte, int, error) {
	if isBinary(data) {
		return nil, 0, fmt.Errorf("%s is a binary file; edit_file changes text only", name)
	}
	oldS, newS := []byte(a.OldString), []byte(a.NewString)
	if bytes.Contains(data, []byte("\r\n")) {
		// A CRLF file: match and write with CRLF line ends.
		oldS, newS = []byte(toCRLF(a.OldString)), []byte(toCRLF(a.NewString))
	}
	n := bytes.Count(data, oldS)
	switch {
	case n == 0:
		return nil, 0, fmt.Errorf("old_string was not found in %s (0 matches); nothing changed. Read the file and copy the text exactly, including whitespace", name)
	case n > 1 && !a.ReplaceAll:
		return nil, 0, fmt.Errorf("old_string matches %d times in %s; nothing changed. Add surrounding text to make it unique, or set replace_all", n, name)
	}
	// The size is known before anything is built: replace_all of a short
	// string by a long one must not build a huge result.
	if size := int64(len(data)) + int64(n)*(int64(len(newS))-int64(len(oldS))); size > maxReadBytes {
		return nil, 0, fmt.Errorf("the edited %s would be %d bytes, more than edit_file's limit of %d; nothing changed", name, size, maxReadBytes)
	}
	return bytes.Replace(data, oldS, newS, n), n, nil
}

// toCRLF turns bare LF line ends into CRLF, leaving CRLF alone.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
