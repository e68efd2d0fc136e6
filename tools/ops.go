package tools

import (
	"context"
	"io/fs"

	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/web"
)

// FileOps is how the file tools touch files. Paths are clean, slash-
// separated and relative to the working directory ("." is the directory
// itself); the tools have already refused lexical escapes. An
// implementation must refuse symbolic links that lead outside (the local
// one uses os.Root) and must be safe for concurrent use.
type FileOps interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile replaces path atomically (temporary file in the same
	// directory, fsync, rename), keeping an existing file's mode and
	// creating missing parent directories.
	WriteFile(ctx context.Context, path string, data []byte) error
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by name.
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
}

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
