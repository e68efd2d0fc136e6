package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestPolicyDiffDoc runs the section "Reviewing a policy change" of
// docs/observability.md: its files (fenced blocks whose info string names
// one) are written into a directory and its console commands run there
// with agentsh this test binary; each prints what the page shows ("echo
// $?" the exit code of the command before it). Its audit log is a valid
// chain, and the agentsh command lines of its shell blocks parse.
func TestPolicyDiffDoc(t *testing.T) {
	t.Parallel()
	section, offset := docSection(t, "observability.md", "Reviewing a policy change")
	sh := newDocShell(t)
	sawLog := false
	for _, blk := range docBlocks(section) {
		where := fmt.Sprintf("docs/observability.md:%d", offset+blk.line)
		sh.block(t, where, blk)
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
		}
	}
	if sh.consoles < 4 || !sawLog {
		t.Fatalf("the section has %d console blocks and an audit log: %v; the test no longer sees its examples", sh.consoles, sawLog)
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
