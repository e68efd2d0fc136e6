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
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/internal/testwait"
)

// auditSection is the audit log's section of docs/observability.md.
func auditSection(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "observability.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(b), "\n## The audit log\n")
	if !ok {
		t.Fatal("docs/observability.md has no section The audit log")
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// TestAuditDoc runs the audit log's section of docs/observability.md
// from top to bottom, as TestDurableDoc runs docs/durable.md: the files it
// shows are written into a directory, its console commands run there in
// order with agentsh this test binary, and each must print what the page
// shows. The record it shows must have the members of the record the
// commands wrote, and its hash must be its own.
func TestAuditDoc(t *testing.T) {
	t.Parallel()
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
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "AGENTSH_MAIN=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	var record string
	consoles, prev := 0, 0
	for _, blk := range docBlocks(auditSection(t)) {
		if blk.name == "record.json" {
			record = blk.text
			continue
		}
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
			case err != nil:
				t.Fatalf("docs/observability.md: %s: %v", c.cmd, err)
			}
			if got := outputLines(out.String()); !linesMatch(c.want, got) {
				t.Errorf("docs/observability.md: $ %s\nprints (exit %d):\n%s\nthe page shows:\n%s", c.cmd, prev,
					strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		}
	}
	if consoles < 4 {
		t.Fatalf("the audit log's section has %d console blocks; the test no longer sees its examples", consoles)
	}

	// The record shown: the members of the second record written, and
	// its own hash.
	var line bytes.Buffer
	if err := json.Compact(&line, []byte(record)); err != nil {
		t.Fatalf("the record the page shows is not JSON: %v", err)
	}
	before, hash, ok := strings.Cut(line.String(), `,"hash":"`)
	sum := sha256.Sum256([]byte(before))
	if !ok || strings.TrimSuffix(hash, `"}`) != hex.EncodeToString(sum[:]) {
		t.Errorf("the record the page shows has hash %s, its bytes hash to %x", hash, sum)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "kept.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	written := strings.Split(string(kept), "\n")[1]
	if got, want := members(t, line.String()), members(t, written); !slices.Equal(got, want) {
		t.Errorf("the record the page shows has the members\n%q\nthe record written has\n%q", got, want)
	}
}

// members lists the members of a JSON object and of the objects in it,
// as paths, in order.
func members(t *testing.T, text string) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	var out, path []string
	var walk func() // reads one value
	walk = func() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, _ := dec.Token()
				path = append(path, k.(string))
				out = append(out, strings.Join(path, "."))
				walk()
				path = path[:len(path)-1]
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				walk()
			}
			dec.Token()
		}
	}
	walk()
	return out
}
