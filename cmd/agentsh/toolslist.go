package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// tools runs: agentsh tools [--json]. The tools of upstream MCP
// servers held back (their definitions changed since they were pinned)
// are listed too, as held back, without their new text.
func (a *app) tools() int {
	names := a.sh.Host().ToolNames()
	held := a.sh.MCP().Held()
	if a.events != nil {
		for _, n := range names {
			tool := a.sh.Host().GetTool(n)
			if tool == nil {
				continue // removed meanwhile
			}
			if up := a.sh.Upstream(n); up != nil {
				tool["upstream"] = up
			}
			a.events.Emit(map[string]any{"event": "tool", "tool": tool})
		}
		for _, h := range held {
			a.events.Emit(map[string]any{"event": "tool_held", "tool": h.Tool, "server": h.Server, "changed": h.Changed, "reason": h.Error()})
		}
		return 0
	}
	if len(names) == 0 && len(held) == 0 {
		fmt.Fprintln(a.io.err, "no tools registered; define some with tool(...) in a file passed to --load")
		return 0
	}
	lines := map[string]string{}
	for _, n := range names {
		desc, _ := a.sh.Host().GetTool(n)["description"].(string)
		lines[n], _, _ = strings.Cut(desc, "\n")
	}
	for _, h := range held {
		lines[h.Tool] = a.heldLine(h.Tool, h.Changed)
	}
	names = names[:0]
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	descs := make([]string, len(names))
	for i, n := range names {
		descs[i] = lines[n]
	}
	writeToolList(a.io.out, names, descs, outputWidth(a.io.out))
	return 0
}

// defaultWidth is the width of output that goes to no terminal.
const defaultWidth = 80

// minDescWidth is the narrowest description column: on a narrower
// terminal the lines run past its edge rather than wrap a word a line.
const minDescWidth = 30

// outputWidth is the width to wrap output to: $COLUMNS when set, else the
// terminal's width when w is one, else defaultWidth.
func outputWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if t, ok := w.(*ttyWriter); ok {
		w = t.file
	}
	if f, ok := w.(*os.File); ok {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return defaultWidth
}

// writeToolList prints one tool a line, its description in a column
// after the names, wrapped at word boundaries to width; continuation
// lines are indented to the column.
func writeToolList(w io.Writer, names, descs []string, width int) {
	col := 0
	for _, n := range names {
		col = max(col, runewidth.StringWidth(n))
	}
	col += 2
	room := max(width-col, minDescWidth)
	var b strings.Builder
	for i, n := range names {
		b.WriteString(n)
		lines := wrap(descs[i], room)
		if len(lines) == 0 {
			b.WriteByte('\n')
			continue
		}
		for j, l := range lines {
			pad := col
			if j == 0 {
				pad -= runewidth.StringWidth(n)
			}
			b.WriteString(strings.Repeat(" ", pad))
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	io.WriteString(w, b.String())
}

// wrap breaks s into lines of at most width columns at spaces; a word
// longer than width gets a line of its own.
func wrap(s string, width int) []string {
	var lines []string
	line, lineWidth := "", 0
	for _, word := range strings.Fields(s) {
		ww := runewidth.StringWidth(word)
		switch {
		case line == "":
			line, lineWidth = word, ww
		case lineWidth+1+ww <= width:
			line += " " + word
			lineWidth += 1 + ww
		default:
			lines = append(lines, line)
			line, lineWidth = word, ww
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
