package tools

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/agentsh/agentsh/internal/userfile"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/web"
)

// FileOps is how the file tools touch files. Paths are clean, slash-
// separated and relative to the working directory ("." is the directory
// itself); the tools have already refused lexical escapes. An
// implementation must resolve symbolic links as the kernel does (a ".."
// after a link leads to the parent of the link's target), refuse links
// that lead outside, and be safe for concurrent use. The local one does
// all of this with os.Root, so a link swapped during a call cannot lead
// out either.
type FileOps interface {
	// ReadFile reads the regular file at path. Anything else (a directory,
	// a named pipe, a device) is a *NotRegularError and is neither read
	// nor waited on. A file larger than limit bytes, or one that grows
	// past limit while it is read, is a *FileSizeError: no more than
	// limit+1 bytes are ever read.
	ReadFile(ctx context.Context, path string, limit int64) ([]byte, error)
	// WriteFile replaces path atomically (temporary file in the same
	// directory, fsync, rename), keeping an existing file's mode and
	// creating missing parent directories. A link is written through, not
	// replaced. An existing path that is not a regular file is a
	// *NotRegularError.
	WriteFile(ctx context.Context, path string, data []byte) error
	// EditFile reads path as ReadFile does, passes its content to edit and
	// replaces that same file with edit's result, as WriteFile does. Links
	// are resolved once: the file written is the file read. If the file
	// is replaced by someone else in between, nothing is written and the
	// error says so. An error from edit is returned as it is.
	EditFile(ctx context.Context, path string, limit int64, edit func(data []byte) ([]byte, error)) error
	// Stat follows symbolic links.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by name.
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
}

// NotRegularError reports a path that is not a regular file where a file
// tool needs one.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // the type bits of what is there
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", quotePath(e.Path), fileKind(e.Mode))
}

// FileSizeError reports a file larger than a limit. Size is -1 when the
// file grew past the limit while it was read.
type FileSizeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *FileSizeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s grew past %d bytes while it was read", quotePath(e.Path), e.Limit)
	}
	return fmt.Sprintf("%s is %d bytes, more than the limit of %d", quotePath(e.Path), e.Size, e.Limit)
}

// fileKind names a file's type for messages, as everywhere in agentsh.
func fileKind(m fs.FileMode) string { return userfile.Kind(m) }

// ExecOps runs processes; see package process. Fetcher and Browser reach
// the web; see package web.
type (
	ExecOps = process.ExecOps
	Fetcher = web.Fetcher
	Browser = web.Browser
)

// CodeRunner runs a snippet of one language in a fresh sandbox with no
// tools, bounded by ctx, and returns what it printed. Whoever wires the
// tools supplies the runners for interpreted languages (starlark, lua);
// tools imports no interpreter.
type CodeRunner func(ctx context.Context, code string) (output string, err error)
