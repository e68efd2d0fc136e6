package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsh/agentsh/internal/testwait"
)

// docBlock is a fenced block of a document: its info string's language
// and file name ("python build.star"), and its text.
type docBlock struct {
	lang, name, text string
	line             int
}

// docBlocks splits a Markdown document into its fenced blocks, those
// indented in a list item too.
func docBlocks(doc string) []docBlock {
	var out []docBlock
	var cur *docBlock
	var body []string
	indent := ""
	for i, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			f := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			cur = &docBlock{line: i + 1}
			if len(f) > 0 {
				cur.lang = f[0]
			}
			if len(f) > 1 {
				cur.name = f[1]
			}
			body = nil
		case cur != nil && trimmed == "```":
			cur.text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, strings.TrimPrefix(line, indent))
		}
	}
	return out
}

// docCommand is a command of a console block and the output it shows.
type docCommand struct {
	cmd  string
	want []string
}

func consoleCommands(text string) []docCommand {
	var out []docCommand
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, docCommand{cmd: cmd})
		} else if len(out) > 0 {
			out[len(out)-1].want = append(out[len(out)-1].want, line)
		}
	}
	return out
}

// outputLines is what a terminal shows of out: each line from its last
// carriage return, without trailing blanks.
func outputLines(out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if j := strings.LastIndex(l, "\r"); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}

// linesMatch matches got against want, where "…" in a line stands for
// any text and a line of "…" alone for any lines.
func linesMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(got); i++ {
			if linesMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	parts := strings.Split(want[0], "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	return re.MatchString(got[0]) && linesMatch(want[1:], got[1:])
}

func TestLinesMatch(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a"}, []string{"a"}, true},
		{[]string{"a"}, []string{"b"}, false},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a…c"}, []string{"abbc"}, true},
		{[]string{"a…c"}, []string{"abbd"}, false},
		{[]string{"…", "c"}, []string{"a", "b", "c"}, true},
		{[]string{"…", "c"}, []string{"c"}, true},
		{[]string{"…", "c"}, []string{"a", "b"}, false},
		{[]string{"(x)"}, []string{"(x)"}, true},
		{nil, nil, true},
	} {
		if got := linesMatch(c.want, c.got); got != c.ok {
			t.Errorf("linesMatch(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
	if got := outputLines("a\rb  \nc\n"); strings.Join(got, "|") != "b|c" {
		t.Errorf("outputLines: got %q, want [b c]", got)
	}
}

// docShell runs the examples of a page of docs/: the files the page shows
// (fenced blocks whose info string names one, "python build.star") are
// written into a directory of its own, and the commands of its console
// blocks run there in order, with agentsh this test binary and a state
// directory of their own. Each command's output, stdout and stderr
// together, must be the one the page shows; "echo $?" says the exit code
// of the command before it (128+N for a process killed by signal N, as a
// shell says).
type docShell struct {
	dir      string
	env      []string
	prev     int // the exit code of the last command
	consoles int // console blocks run
}

// newDocShell makes the directory and the environment; the variables
// named in drop ("AGENTSH_DB") are left out of it.
func newDocShell(t *testing.T, drop ...string) *docShell {
	t.Helper()
	dir, bin := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "agentsh")); err != nil {
		t.Fatal(err)
	}
	drop = append(drop, "PATH", "XDG_STATE_HOME")
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, name) {
			env = append(env, kv)
		}
	}
	env = append(env, "AGENTSH_MAIN=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	return &docShell{dir: dir, env: env}
}

// block writes blk's file, when it names one, and runs it when it is a
// console block; where is the page and the block's line, for messages.
func (d *docShell) block(t *testing.T, where string, blk docBlock) {
	t.Helper()
	if blk.name != "" {
		if err := os.WriteFile(filepath.Join(d.dir, blk.name), []byte(blk.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if blk.lang != "console" {
		return
	}
	d.consoles++
	for _, c := range consoleCommands(blk.text) {
		script := c.cmd
		if strings.Contains(script, "$?") {
			script = fmt.Sprintf("(exit %d); %s", d.prev, script)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testwait.Step)
		cmd := exec.CommandContext(ctx, "bash", "-c", script)
		cmd.Dir, cmd.Env = d.dir, d.env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		d.prev = 0
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			d.prev = exit.ExitCode()
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				d.prev = 128 + int(ws.Signal())
			}
		case err != nil:
			t.Fatalf("%s: %s: %v", where, c.cmd, err)
		}
		if got := outputLines(out.String()); !linesMatch(c.want, got) {
			t.Errorf("%s: $ %s\nprints (exit %d):\n%s\nthe page shows:\n%s", where, c.cmd, d.prev,
				strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// docSection is the section of docs/PAGE under "## heading", up to the
// next one, and the number of lines of the page before it (so that a
// block's line in the section plus it is its line in the page).
func docSection(t *testing.T, page, heading string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## "+heading+"\n")
	if start < 0 {
		t.Fatalf("docs/%s has no section %s", page, heading)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+4]
	}
	return section, strings.Count(doc[:start+1], "\n")
}
