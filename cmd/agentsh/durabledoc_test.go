package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDurableDoc runs docs/durable.md from top to bottom (see docShell),
// with a database of its own.
func TestDurableDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "durable.md"))
	if err != nil {
		t.Fatal(err)
	}
	sh := newDocShell(t, "AGENTSH_DB")
	for _, blk := range docBlocks(string(b)) {
		sh.block(t, fmt.Sprintf("docs/durable.md:%d", blk.line), blk)
	}
	if sh.consoles < 5 {
		t.Fatalf("docs/durable.md has %d console blocks; the test no longer sees its examples", sh.consoles)
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
