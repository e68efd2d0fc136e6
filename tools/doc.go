// Package tools is agentsh's built-in tools extension: files (read_file,
// write_file, edit_file, list_dir), search (glob, grep), shell (bash), web
// (fetch, browser) and code (run_code).
//
//	ext := tools.NewExtension(tools.ExtensionConfig{WorkingDir: "/path/to/project"})
//	err := exec.Install(ctx, ext)
//
// Every tool reaches the world through an interface a host can replace to
// delegate to a remote machine or a sandbox: FileOps, ExecOps, Fetcher,
// Browser, and the search package's Grepper and Globber. Nothing bypasses
// them. The defaults are local: FileOps confined to WorkingDir with os.Root,
// ExecOps as local processes (or Bubblewrap), an HTTP Fetcher with a
// destination policy, Chromium through chromedp.
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
// # Determinism
//
// The same inputs give byte-identical output on every backend: paths are in
// byte-wise order of the slash path relative to WorkingDir, grep matches by
// path then line, and limits apply after sorting.
package tools
