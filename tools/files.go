package tools

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// Defaults of read_file.
const (
	defaultReadLines = 2000
	maxReadBytes     = 64 << 20 // larger files are refused: use grep, or offset/limit on a smaller file
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
		"Reads a text file with line numbers (or an image as an image block). offset is the 1-based first line, limit the number of lines (default 2000).",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory"},`+
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
	st, err := x.files.Stat(ctx, rel)
	if err != nil {
		return nil, friendlyFSError(rel, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory; use list_dir to see what it holds", rel)
	}
	if st.Size() > maxReadBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than read_file's %d; search it with grep instead", rel, st.Size(), maxReadBytes)
	}
	data, err := x.files.ReadFile(ctx, rel)
	if err != nil {
		return nil, friendlyFSError(rel, err)
	}
	if mime := http.DetectContentType(data); imageTypes[mime] {
		return core.BlockOutput{
			Text:   fmt.Sprintf("[image %s: %s, %d bytes]", rel, mime, len(data)),
			Blocks: []core.Block{{Type: "image", MIMEType: mime, Data: data}},
		}, nil
	}
	if isBinary(data) {
		return nil, fmt.Errorf("%s is a binary file (%d bytes); read_file shows text and images only", rel, len(data))
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
		return fmt.Sprintf("[%s is empty]", rel), nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > total {
		return nil, fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, rel, total)
	}
	end := min(offset-1+limit, total)
	var b strings.Builder
	for i := offset - 1; i < end; i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, cutLine(line, maxLineChars))
	}
	if end < total {
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; continue with offset %d]\n", offset, end, total, end+1)
	}
	return b.String(), nil
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (x *Extension) writeFileTool() core.Tool {
	return tool("write_file",
		"Writes a file atomically, replacing what was there and creating parent directories. An existing file keeps its mode.",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory"},`+
			`"content":{"type":"string","description":"the whole new content"}},`+
			`"required":["path","content"],"additionalProperties":false}`,
		unsafe, true, x.writeFile)
}

func (x *Extension) writeFile(ctx context.Context, a writeArgs) (any, error) {
	if a.Content == nil {
		return nil, fmt.Errorf("write_file: content is required (use \"\" for an empty file)")
	}
	rel, err := x.resolve(a.Path)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, fmt.Errorf("write_file: path %q is the working directory itself; name a file", a.Path)
	}
	if err := x.files.WriteFile(ctx, rel, []byte(*a.Content)); err != nil {
		return nil, friendlyFSError(rel, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(*a.Content), rel), nil
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (x *Extension) editFileTool() core.Tool {
	return tool("edit_file",
		"Replaces an exact string in a file. old_string must match exactly once unless replace_all is set; otherwise nothing changes. CRLF files stay CRLF.",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"file path relative to the working directory"},`+
			`"old_string":{"type":"string","description":"the exact text to replace"},`+
			`"new_string":{"type":"string","description":"the replacement"},`+
			`"replace_all":{"type":"boolean","description":"replace every occurrence (default false)"}},`+
			`"required":["path","old_string","new_string"],"additionalProperties":false}`,
		unsafe, false, x.editFile)
}

func (x *Extension) editFile(ctx context.Context, a editArgs) (any, error) {
	rel, err := x.resolve(a.Path)
	if err != nil {
		return nil, err
	}
	if a.OldString == "" {
		return nil, fmt.Errorf("edit_file: old_string is empty; use write_file to create or replace a whole file")
	}
	if a.OldString == a.NewString {
		return nil, fmt.Errorf("edit_file: old_string and new_string are the same; nothing would change")
	}
	data, err := x.files.ReadFile(ctx, rel)
	if err != nil {
		return nil, friendlyFSError(rel, err)
	}
	if isBinary(data) {
		return nil, fmt.Errorf("%s is a binary file; edit_file changes text only", rel)
	}
	content := string(data)
	oldS, newS := a.OldString, a.NewString
	if bytes.Contains(data, []byte("\r\n")) {
		// A CRLF file: match and write with CRLF line ends.
		oldS, newS = toCRLF(oldS), toCRLF(newS)
	}
	n := strings.Count(content, oldS)
	switch {
	case n == 0:
		return nil, fmt.Errorf("old_string was not found in %s (0 matches); nothing changed. Read the file and copy the text exactly, including whitespace", rel)
	case n > 1 && !a.ReplaceAll:
		return nil, fmt.Errorf("old_string matches %d times in %s; nothing changed. Add surrounding text to make it unique, or set replace_all", n, rel)
	}
	if a.ReplaceAll {
		content = strings.ReplaceAll(content, oldS, newS)
	} else {
		content = strings.Replace(content, oldS, newS, 1)
	}
	if err := x.files.WriteFile(ctx, rel, []byte(content)); err != nil {
		return nil, friendlyFSError(rel, err)
	}
	if n == 1 {
		return fmt.Sprintf("replaced 1 occurrence in %s", rel), nil
	}
	return fmt.Sprintf("replaced %d occurrences in %s", n, rel), nil
}

// toCRLF turns bare LF line ends into CRLF, leaving CRLF alone.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
