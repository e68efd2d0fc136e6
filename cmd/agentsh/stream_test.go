package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// agentsh call prints the same bytes whether grep streams its output or,
// because an after hook sees it, holds it.
func TestCallPrintsTheSameStreamedOrHeld(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.go":         "package a\n// TODO one\nfunc A() {}\n// todo two\n",
		"b/b.go":       "x\ny TODO\nz\n",
		"new\nline.md": "TODO\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	audit := filepath.Join(t.TempDir(), "audit.star")
	if err := os.WriteFile(audit, []byte(`after(lambda call, result: print("audit", call.name, len(result.output)), tools = ["grep"])`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"pattern": "TODO"}`,
		`{"pattern": "(?i)todo", "output_mode": "content", "context": 1}`,
		`{"pattern": "TODO", "output_mode": "count", "head_limit": 1}`,
		`{"pattern": "TODO", "output_mode": "content", "offset": 9}`,
		`{"pattern": "nowhere", "output_mode": "content"}`,
	} {
		streamed, errOut, code := runInProcess(t, "", "--workdir", dir, "call", "grep", args)
		if code != 0 || errOut != "" {
			t.Fatalf("call grep %s: exit %d, stderr %q", args, code, errOut)
		}
		held, errOut, code := runInProcess(t, "", "--workdir", dir, "--load", audit, "call", "grep", args)
		if code != 0 || !strings.HasPrefix(errOut, "audit grep ") {
			t.Fatalf("call grep %s with an after hook: exit %d, stderr %q; want the hook's print", args, code, errOut)
		}
		if streamed != held || streamed == "" {
			t.Errorf("call grep %s printed\n%q\nstreamed, and\n%q\nheld; want the same", args, streamed, held)
		}
	}
}

// brokenPipe is a stdout whose reader has gone.
type brokenPipe struct{ writes int }

func (b *brokenPipe) Write([]byte) (int, error) {
	b.writes++
	return 0, syscall.EPIPE
}

// When whoever reads stdout has gone (agentsh call grep ... | head -1),
// the call stops at the first failed write and says nothing.
func TestCallEndsQuietlyWhenStdoutCloses(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for range 20000 {
		text.WriteString("a matching line\n")
	}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := &brokenPipe{}
	var errOut bytes.Buffer
	code := cli([]string{"--workdir", dir, "call", "grep", `{"pattern": "match", "output_mode": "content", "head_limit": 100000000}`},
		stdio{in: strings.NewReader(""), out: out, err: &errOut})
	if code != 1 || errOut.Len() != 0 || out.writes != 1 {
		t.Errorf("exit %d after %d writes, stderr %q; want 1 after the first write, and nothing said", code, out.writes, errOut.String())
	}
}
