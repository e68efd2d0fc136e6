// Package tools is agentsh's built-in tools extension: files (read_file,
// write_file, edit_file, list_dir), search (glob, grep), shell (bash), web
// (fetch, browser) and code (run_code).
//
//	ext := tools.NewExtension(tools.ExtensionConfig{WorkingDir: "/path/to/project"})
//	err := exec.Install(ctx, ext)
//
// The browser tool needs a Browser: set ExtensionConfig.Browser, or
// import package tools/browser, which registers headless Chromium
// (RegisterBrowser). Without either the extension has no browser tool,
// and the program does not link Chromium's driver.
//
// Every tool reaches the world through an interface a host can replace to
// delegate to a remote machine or a sandbox: FileOps, ExecOps, Fetcher,
// Browser, and the search package's Grepper and Globber. Nothing bypasses
// them. The defaults are local: FileOps confined to WorkingDir with os.Root,
// ExecOps as local processes (or Bubblewrap), an HTTP Fetcher with a
// destination policy, Chromium through chromedp (from tools/browser).
//
// # Confinement
//
// Paths are relative to WorkingDir (absolute paths inside it are accepted).
// "..", absolute paths outside and symbolic links that lead out are refused,
// for every file and search tool and for bash's workdir, with a message
// naming the path. Shell allow and block lists are a convenience, not
// isolation: a determined command can evade any parser. Real isolation is an
// ExecOps backend such as BubblewrapExec.
//
// Links resolve as the kernel resolves them (a ".." after a link goes to
// the parent of the link's target; an absolute link naming a path inside
// WorkingDir is followed), and edit_file writes the file it read.
//
// # Files
//
// read_file, write_file and edit_file handle regular files of up to
// 64 MiB. Named pipes, devices and sockets are refused without being read
// or waited on; larger files are refused by size, and a file is never read
// past the limit, even one that grows while it is read. A write goes to a
// temporary file named ".agentsh-tmp-" and 16 hex digits in the target's
// directory, renamed over the target when complete; the next write in a
// directory removes those a killed writer left behind.
//
// # Paths in output
//
// Every tool prints a path bare unless it holds a newline or another
// control character, a character that does not print, or bytes that are
// not UTF-8, or starts with a double quote. Such a path is printed as a
// double-quoted C string, as ls --quoting-style=c does (\n, \t, \", \\ and
// \ooo for other bytes), so a path is always one line of valid UTF-8 and
// starts with " exactly when it is quoted. Every tool that takes a path
// accepts the quoted form back.
//
// # Data
//
// Every tool returns its outcome twice: as text for the model, whose
// markers say where a page ends or why nothing came back ("no matches for
// X", "[more results; continue with offset N]"), and as core.Result.Data
// for scripts and programs: grep's paths, lines or counts with offset,
// next_offset, truncated and total; read_file's lines and next_offset;
// bash's exit code and output, also when the command failed; and so on.
// docs/results.md lists every field and the marker it stands for.
//
// # Streamed output
//
// grep writes its output as it goes when its caller asks for a stream
// and the executor grants it (see core.WithOutputStream; agentsh call
// does, without --json): no middleware, after hook or artifact offload
// then sees the output, and the result says Streamed and holds no text
// or data. The bytes written are those a person is shown of the held
// output, with the same 64 MiB cap, trailer and messages; head_limit,
// offset, the cap and a failed write stop the search. What a streaming
// grep holds is the results of the file being formatted (each line cut
// at search.MaxLineBytes, 64 KiB) and about 64 KiB of text waiting to
// be written, besides what the backend has in flight, however large the
// output.
//
// # Determinism
//
// The same inputs give byte-identical output, and identical data, on
// every backend: paths are in byte-wise order of the slash path relative
// to WorkingDir, grep matches by path then line, and limits apply after
// sorting.
package tools
