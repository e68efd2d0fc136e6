package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAuditDoc runs the audit log's section of docs/observability.md
// from top to bottom, as TestDurableDoc runs docs/durable.md: the files it
// shows are written into a directory, its console commands run there in
// order with agentsh this test binary, and each must print what the page
// shows. The record it shows must have the members of the record the
// commands wrote, and its hash must be its own.
func TestAuditDoc(t *testing.T) {
	t.Parallel()
	section, offset := docSection(t, "observability.md", "The audit log")
	sh := newDocShell(t)
	var record string
	for _, blk := range docBlocks(section) {
		if blk.name == "record.json" {
			record = blk.text
			continue
		}
		sh.block(t, fmt.Sprintf("docs/observability.md:%d", offset+blk.line), blk)
	}
	if sh.consoles < 4 {
		t.Fatalf("the audit log's section has %d console blocks; the test no longer sees its examples", sh.consoles)
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
	kept, err := os.ReadFile(filepath.Join(sh.dir, "kept.jsonl"))
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
