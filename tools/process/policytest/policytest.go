// Package policytest holds the corpus that a shell policy is tested
// against: command lines that run a program without naming it where a
// static reading sees a command (bash's implicit evaluation sites), and
// ordinary command lines that a policy must keep allowing.
//
// The program every bypass runs is `touch P`, which creates the marker
// file P in its working directory, so a test can prove both halves: that
// the payload really runs the program under `bash -c` (the corpus cannot
// rot into entries that do nothing), and that nothing ran when the policy
// was applied.
//
//	for _, p := range policytest.Bypasses() {
//		dir := t.TempDir()
//		policytest.Setup(t, dir)
//		// run p.Command with bash -c in dir, then:
//		if !policytest.Ran(dir) { ... }
//	}
//
// The corpus lives in testdata/bypass.txtar and testdata/harmless.txtar;
// each file of the archive is one command line, named CLASS/NAME for
// bypasses.
package policytest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Marker is the file, relative to the working directory, that every
// bypass creates.
const Marker = "P"

// Block is a block list that every bypass must be refused by: it names
// the program the bypasses run.
var Block = []string{"touch"}

// Allow is an allow list that every bypass must be refused by, although it
// allows the shells, wrappers and builtins the bypasses go through: only
// touch is missing. Every Harmless command line passes it.
var Allow = []string{
	"ls", "echo", "cat", "grep", "wc", "head", "sort", "printf", "read", "mapfile", "readarray",
	"declare", "local", "export", "readonly", "typeset", "let", "test", "[", "true", ":", "set",
	"shopt", "unset", "eval", "bash", "sh", "env", "command", "builtin", "source", ".", "alias",
	"trap", "compgen", "jobs", "wait", "getopts", "script",
}

// Payload is one command line of the corpus.
type Payload struct {
	// Name is CLASS/NAME for a bypass, NAME for a harmless command line.
	Name string
	// Class is the part of Name before the slash ("" for harmless ones).
	Class string
	// Command is the command line.
	Command string
	// Needs lists programs the command line needs besides bash, from a
	// first line "# needs: PROG...".
	Needs []string
}

// Missing returns the first program p needs that is not on PATH, or "".
func (p Payload) Missing() string {
	for _, prog := range p.Needs {
		if _, err := exec.LookPath(prog); err != nil {
			return prog
		}
	}
	return ""
}

//go:embed testdata/bypass.txtar
var bypassArchive []byte

//go:embed testdata/harmless.txtar
var harmlessArchive []byte

// Bypasses returns the command lines a policy must refuse, in the order of
// the archive.
func Bypasses() []Payload { return parse(bypassArchive) }

// Harmless returns the command lines a policy with Allow or Block must
// allow.
func Harmless() []Payload { return parse(harmlessArchive) }

func parse(archive []byte) []Payload {
	a := txtar.Parse(archive)
	out := make([]Payload, 0, len(a.Files))
	for _, f := range a.Files {
		p := Payload{Name: f.Name, Command: strings.TrimSuffix(string(f.Data), "\n")}
		if class, _, ok := strings.Cut(f.Name, "/"); ok {
			p.Class = class
		}
		if first, _, _ := strings.Cut(p.Command, "\n"); strings.HasPrefix(first, "# needs:") {
			p.Needs = strings.Fields(strings.TrimPrefix(first, "# needs:"))
		}
		out = append(out, p)
	}
	return out
}

// Setup writes the files the corpus expects in dir: a.txt (two lines),
// lib.sh and script.sh (which echo), and a message catalog
// mo/fr/LC_MESSAGES/x.mo that translates "hello" into "$(touch P)".
func Setup(t testing.TB, dir string) {
	t.Helper()
	files := map[string][]byte{
		"a.txt":     []byte("line one\nline two\n"),
		"lib.sh":    []byte("echo lib\n"),
		"script.sh": []byte("echo script\n"),
		"mo/fr/LC_MESSAGES/x.mo": messageCatalog(map[string]string{
			"":      "Content-Type: text/plain; charset=UTF-8\n",
			"hello": "$(touch " + Marker + ")",
		}),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Ran reports whether the marker exists in dir.
func Ran(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, Marker))
	return err == nil
}

// messageCatalog encodes a GNU gettext .mo file (little-endian, no hash
// table) with the given translations.
func messageCatalog(msgs map[string]string) []byte {
	keys := make([]string, 0, len(msgs))
	for k := range msgs {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the originals must be sorted
	n := uint32(len(keys))
	const header = 7 * 4
	origTable := uint32(header)
	transTable := origTable + 8*n
	strOff := transTable + 8*n
	var out, data bytes.Buffer
	le := binary.LittleEndian
	put := func(b *bytes.Buffer, v uint32) { b.Write(le.AppendUint32(nil, v)) }
	var orig, trans bytes.Buffer
	for _, k := range keys {
		put(&orig, uint32(len(k)))
		put(&orig, strOff+uint32(data.Len()))
		data.WriteString(k + "\x00")
	}
	for _, k := range keys {
		v := msgs[k]
		put(&trans, uint32(len(v)))
		put(&trans, strOff+uint32(data.Len()))
		data.WriteString(v + "\x00")
	}
	for _, v := range []uint32{0x950412de, 0, n, origTable, transTable, 0, strOff} {
		put(&out, v)
	}
	out.Write(orig.Bytes())
	out.Write(trans.Bytes())
	out.Write(data.Bytes())
	return out.Bytes()
}
