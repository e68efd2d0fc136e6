package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/agentsh/agentsh/internal/termsafe"
)

// What agentsh shows on a person's terminal is spelled out first (package
// termsafe): model text, tool output, reasons, tool names, arguments and
// what scripts print cannot move the cursor, clear the screen, set the
// clipboard, conceal or reorder text, or hide characters. A pipe or a
// file gets every byte as it is, so piped output stays byte for byte what
// the tools returned.

// isTerminal reports whether r is a terminal (by its line discipline: a
// character device such as /dev/null is not one).
func isTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// ttyWriter is a terminal behind a termsafe.Writer; the file stays at
// hand for the terminal's width.
type ttyWriter struct {
	*termsafe.Writer
	file *os.File
}

// safeTerminals puts stdout and stderr behind a termsafe.Writer when they
// are terminals that show text to a person: not the protocol stream of
// mcp serve and hook (stdout), nor --json's events.
func safeTerminals(std stdio, o *options) stdio {
	if f, ok := std.out.(*os.File); ok && isTerminal(f) && !o.jsonOut && o.command != "mcp" && o.command != "hook" {
		std.out = &ttyWriter{termsafe.NewWriter(f), f}
	}
	if f, ok := std.err.(*os.File); ok && isTerminal(f) && !(o.command == "mcp" && o.jsonOut) {
		std.err = &ttyWriter{termsafe.NewWriter(f), f}
	}
	return std
}

// terminalSafe returns w if it spells out what it shows (see
// safeTerminals), else w behind a termsafe.Writer.
func terminalSafe(w io.Writer) io.Writer {
	switch w.(type) {
	case *ttyWriter, *termsafe.Writer:
		return w
	}
	return termsafe.NewWriter(w)
}

// flushTerminal writes what the writers hold back of an unfinished
// character or escape (see termsafe.Writer): before a prompt, and at the
// end.
func flushTerminal(ws ...io.Writer) {
	for _, w := range ws {
		if f, ok := w.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
	}
}
