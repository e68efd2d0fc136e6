// Package rules puts a project's rule files into the agent's system prompt.
//
// Rule files are the Markdown files a project keeps for coding agents:
// AGENTS.md and, for compatibility, CLAUDE.md. The extension collects them
// from the project root down to the working directory, so rules written for
// the whole repository come first and rules for a subdirectory follow:
//
//	ext := rules.New(rules.Config{WorkDir: "/src/project/service"})
//	err := exec.Install(ctx, ext) // reads the files once, in Init
//	prompt := ext.SystemPrompt()
//
// The project root is the nearest ancestor of the working directory (the
// directory itself included) that holds .git, a directory or a file; without
// one, only the working directory is searched. In each directory AGENTS.md
// comes before CLAUDE.md. Each file appears under a header naming its path
// relative to the root:
//
//	# Rules from AGENTS.md
//
//	...
//
//	# Rules from service/AGENTS.md
//
//	...
//
// The section is capped (32 KiB by default). When the files together are
// larger, whole files are left out, those farthest from the working
// directory first, and a warning names each file left out; a file larger
// than the cap on its own is always left out. A rule file that is a symbolic
// link is followed only when its target stays inside the root; otherwise it
// is ignored with a warning. A rule file that exists but cannot be read is
// an error.
package rules
