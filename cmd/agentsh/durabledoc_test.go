package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestDurableDoc runs docs/durable.md from top to bottom: the files it
// shows (fenced blocks whose info string names one, "python build.star")
// are written into a directory, and the commands of its console blocks run
// there in order, with agentsh this test binary and a database of their
// own. Each command's output, stdout and stderr together, must be the one
// the page shows; "echo $?" says the exit code of the command before it
// (128+N for a process killed by signal N, as a shell says).
func TestDurableDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "durable.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(string(b))
	dir, bin := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "agentsh")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTSH_DB=") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "AGENTSH_MAIN=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+filepath.Join(dir, ".state"))

	consoles, prev := 0, 0
	for _, blk := range blocks {
		if blk.name != "" {
			if err := os.WriteFile(filepath.Join(dir, blk.name), []byte(blk.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if blk.lang != "console" {
			continue
		}
		consoles++
		for _, c := range consoleCommands(blk.text) {
			script := c.cmd
			if strings.Contains(script, "$?") {
				script = fmt.Sprintf("(exit %d); %s", prev, script)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testwait.Step)
			cmd := exec.CommandContext(ctx, "bash", "-c", script)
			cmd.Dir, cmd.Env = dir, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			cancel()
			prev = 0
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				prev = exit.ExitCode()
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					prev = 128 + int(ws.Signal())
				}
			case err != nil:
				t.Fatalf("docs/durable.md:%d: %s: %v", blk.line, c.cmd, err)
			}
			if got := outputLines(out.String()); !linesMatch(c.want, got) {
				t.Errorf("docs/durable.md:%d: $ %s\nprints (exit %d):\n%s\nthe page shows:\n%s", blk.line, c.cmd, prev,
					strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		}
	}
	if consoles < 5 {
		t.Fatalf("docs/durable.md has %d console blocks; the test no longer sees its examples", consoles)
	}
}

// TestDurableDocCommands: the agentsh command lines docs/durable.md shows
// for other machines (shell and YAML blocks, which the page does not run)
// are ones agentsh accepts, and its Go example is ExampleOpenRuns as
// example_test.go has it.
func TestDurableDocCommands(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "durable.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]string
	var goBlock string
	for _, blk := range docBlocks(string(b)) {
		switch blk.lang {
		case "sh":
			for _, l := range strings.Split(blk.text, "\n") {
				if strings.HasPrefix(l, "agentsh ") {
					lines = append(lines, strings.Fields(l))
				}
			}
		case "yaml":
			if m := regexp.MustCompile(`(?s)command: (\[.*?\])`).FindStringSubmatch(blk.text); m != nil {
				var argv []string
				if err := json.Unmarshal([]byte(m[1]), &argv); err != nil {
					t.Fatalf("docs/durable.md:%d: command %s: %v", blk.line, m[1], err)
				}
				lines = append(lines, argv)
			}
			for _, m := range regexp.MustCompile(`(?m)- run: (agentsh .*)$`).FindAllStringSubmatch(blk.text, -1) {
				lines = append(lines, strings.Fields(strings.ReplaceAll(m[1], `"`, "")))
			}
		case "go":
			goBlock = blk.text
		}
	}
	if len(lines) < 4 {
		t.Fatalf("found %d agentsh command lines in docs/durable.md's shell and YAML blocks; want the worker, the coordinator, the Job and the CI job", len(lines))
	}
	for _, argv := range lines {
		if argv[0] != "agentsh" {
			t.Errorf("%q does not run agentsh", argv)
			continue
		}
		if _, err := parseArgs(argv[1:]); err != nil {
			t.Errorf("docs/durable.md shows %q, which agentsh refuses: %v", strings.Join(argv, " "), err)
		}
	}
	ex, err := os.ReadFile(filepath.Join(root, "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if goBlock == "" || !strings.Contains(string(ex), strings.ReplaceAll(goBlock, "    ", "\t")) {
		t.Errorf("docs/durable.md's Go example is not ExampleOpenRuns of example_test.go:\n%s", goBlock)
	}
}
