package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/internal/testwait"
)

// TestPolicyDiffDoc runs the section "Reviewing a policy change" of
// docs/observability.md: its files (fenced blocks whose info string names
// one) are written into a directory and its console commands run there
// with agentsh this test binary; each prints what the page shows ("echo
// $?" the exit code of the command before it). Its audit log is a valid
// chain, and the agentsh command lines of its shell blocks parse.
func TestPolicyDiffDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "observability.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Reviewing a policy change\n")
	if start < 0 {
		t.Fatal("docs/observability.md has no section Reviewing a policy change")
	}
	offset := strings.Count(doc[:start+1], "\n")
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+4]
	}
	dir, bin := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "agentsh")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AGENTSH_MAIN=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+filepath.Join(dir, ".state"))

	consoles, prev, sawLog := 0, 0, false
	for _, blk := range docBlocks(section) {
		where := fmt.Sprintf("docs/observability.md:%d", offset+blk.line)
		if blk.name != "" {
			if err := os.WriteFile(filepath.Join(dir, blk.name), []byte(blk.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		switch blk.lang {
		case "jsonl":
			sawLog = true
			checkChain(t, where, blk.text)
		case "sh":
			for _, l := range strings.Split(blk.text, "\n") {
				if argv := strings.Fields(strings.Split(l, ">")[0]); len(argv) > 0 && argv[0] == "agentsh" {
					if _, err := parseArgs(argv[1:]); err != nil {
						t.Errorf("%s: %s: %v", where, l, err)
					}
				}
			}
		case "console":
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
				case err != nil:
					t.Fatalf("%s: %s: %v", where, c.cmd, err)
				}
				if got := outputLines(out.String()); !linesMatch(c.want, got) {
					t.Errorf("%s: $ %s\nprints (exit %d):\n%s\nthe page shows:\n%s", where, c.cmd, prev,
						strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
			}
		}
	}
	if consoles < 4 || !sawLog {
		t.Fatalf("the section has %d console blocks and an audit log: %v; the test no longer sees its examples", consoles, sawLog)
	}
}

// checkChain checks the audit log lines of a page: each line's hash is
// the SHA-256 of the line before ,"hash":, and the next line's prev.
func checkChain(t *testing.T, where, log string) {
	t.Helper()
	prev := ""
	for i, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		body, _, ok := strings.Cut(line, `,"hash":`)
		var rec struct {
			Seq        int
			Prev, Hash string
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || !ok {
			t.Fatalf("%s: line %d is no audit record: %v", where, i+1, err)
		}
		sum := sha256.Sum256([]byte(body))
		if h := hex.EncodeToString(sum[:]); rec.Hash != h || rec.Prev != prev || rec.Seq != i+1 {
			t.Errorf("%s: record %d: seq %d, prev %.8s, hash %.8s; want seq %d, prev %.8s, hash %.8s", where, i+1, rec.Seq, rec.Prev, rec.Hash, i+1, prev, h)
		}
		prev = rec.Hash
	}
}
