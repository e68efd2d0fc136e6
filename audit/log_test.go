package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
)

// TestAppendChain: Append fills in the chain, and a second Log on the
// file goes on from where the first stopped.
func TestAppendChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := testRecord(1), testRecord(2)
	if err := l.Append(r1); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(r2); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if r1.Seq != 1 || r1.Prev != "" || r2.Seq != 2 || r2.Prev != r1.Hash || len(r2.Hash) != 64 {
		t.Fatalf("chain: r1 %d %q %q, r2 %d %q %q", r1.Seq, r1.Prev, r1.Hash, r2.Seq, r2.Prev, r2.Hash)
	}
	if err := l.Append(testRecord(3)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Append after Close = %v, want an error saying it is closed", err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	l2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r3 := testRecord(3)
	if err := l2.Append(r3); err != nil {
		t.Fatal(err)
	}
	l2.Close()
	if r3.Seq != 3 || r3.Prev != r2.Hash {
		t.Errorf("reopened: seq %d prev %q, want 3 after %q", r3.Seq, r3.Prev, r2.Hash)
	}
	b, _ := os.ReadFile(path)
	rep := verifyBytes(t, b)
	if !rep.Intact() || rep.Records != 3 || rep.Head != r3.Hash {
		t.Errorf("Verify = %+v, want 3 records with head %s", rep, r3.Hash)
	}
	// What a line holds is the record, read back as JSON.
	var back Record
	if err := json.Unmarshal(lines(b)[0], &back); err != nil {
		t.Fatal(err)
	}
	if back.Seq != 1 || back.Hash != r1.Hash || back.Call.Tool != "bash" || back.Outcome.Hook != "default" || back.Kind != KindCall || back.Via != "run" {
		t.Errorf("read back %+v", back)
	}
}

// TestAppendSeesOtherWriters: two Logs on one file in turns each see the
// other's records (the cached end is checked against the file's size).
func TestAppendSeesOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 6 {
		l := a
		if i%3 == 1 {
			l = b
		}
		if err := l.Append(testRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	if rep := verifyBytes(t, data); !rep.Intact() || rep.Records != 6 {
		t.Errorf("Verify = %+v, want 6 chained records", rep)
	}
}

// TestAppendConcurrent: goroutines sharing a Log, and goroutines each
// with its own Log on the same file, lose and repeat no record.
func TestAppendConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	shared, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	const goroutines, each = 8, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			l := shared
			if g%2 == 1 {
				own, err := Open(path)
				if err != nil {
					t.Error(err)
					return
				}
				defer own.Close()
				l = own
			}
			for i := range each {
				rec := testRecord(g*1000 + i)
				if err := l.Append(rec); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkAll(t, path, goroutines, each)
}

// checkAll verifies the log at path and checks it holds each record
// writer*1000+i (i < each) of writers writers exactly once.
func checkAll(t *testing.T, path string, writers, each int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := verifyBytes(t, data)
	if !rep.Intact() || rep.Records != writers*each {
		t.Fatalf("Verify = %d records, problems %+v; want %d records and none", rep.Records, rep.Problems, writers*each)
	}
	seen := map[string]int{}
	for _, line := range lines(data) {
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		seen[rec.Call.ID]++
	}
	for w := range writers {
		for i := range each {
			if id := fmt.Sprintf("call_%d", w*1000+i); seen[id] != 1 {
				t.Errorf("record %s appears %d times, want once", id, seen[id])
			}
		}
	}
}

// TestAppendProcesses: 8 processes (this test binary again) append to
// one log at once; the chain holds every record once.
func TestAppendProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	const procs, each = 8, 20
	cmds := make([]*exec.Cmd, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendHelper$")
		cmd.Env = append(os.Environ(), "AUDIT_HELPER_LOG="+path, "AUDIT_HELPER_WRITER="+strconv.Itoa(p), "AUDIT_HELPER_COUNT="+strconv.Itoa(each))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = cmd
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer %d: %s", p, out.String())
			}
		})
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", p, err)
		}
	}
	checkAll(t, path, procs, each)
}

// TestAppendHelper is one writer process of TestAppendProcesses.
func TestAppendHelper(t *testing.T) {
	path := os.Getenv("AUDIT_HELPER_LOG")
	if path == "" {
		t.Skip("a writer process of TestAppendProcesses")
	}
	w, _ := strconv.Atoi(os.Getenv("AUDIT_HELPER_WRITER"))
	n, _ := strconv.Atoi(os.Getenv("AUDIT_HELPER_COUNT"))
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		if err := l.Append(testRecord(w*1000 + i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTornLastLine: a writer that stopped mid-record leaves a torn last
// line; Verify says so, and the next Append ends the line and chains
// from the last whole record, losing nothing.
func TestTornLastLine(t *testing.T) {
	path := writeLog(t, t.TempDir(), 3)
	whole, _ := os.ReadFile(path)
	// A fourth record, cut in the middle, as a crash would leave it.
	scratch := writeLog(t, t.TempDir(), 4)
	four, _ := os.ReadFile(scratch)
	last := lines(four)[3]
	torn := append(bytes.Clone(whole), last[:len(last)/2]...)
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := verifyBytes(t, torn)
	p := firstProblem(t, rep, torn)
	if p.Kind != ProblemTorn || p.Line != 4 || p.Seq != 4 || rep.Records != 3 || !strings.Contains(p.Message, "record seq 4 is torn") {
		t.Fatalf("Verify(torn) = %+v, want line 4 (seq 4) torn after 3 records", rep)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(9)
	if err := l.Append(rec); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(testRecord(10)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, torn) {
		t.Fatal("the torn log was changed, not appended to")
	}
	if rec.Seq != 4 {
		t.Errorf("the record after the torn line has seq %d, want 4 (the torn one never joined the chain)", rec.Seq)
	}
	rep = verifyBytes(t, after)
	if rep.Records != 5 || len(rep.Problems) != 1 || rep.Problems[0].Kind != ProblemTorn || rep.Problems[0].Line != 4 ||
		!strings.Contains(rep.Problems[0].Message, "no record of the chain is lost") {
		t.Errorf("Verify(after) = %+v, want 5 records and the torn line 4 named", rep)
	}
	// A last record whose newline alone is missing is still in the chain.
	cut := whole[:len(whole)-1]
	rep = verifyBytes(t, cut)
	if rep.Records != 3 || len(rep.Problems) != 1 || rep.Problems[0].Kind != ProblemTorn || rep.Problems[0].Seq != 3 {
		t.Errorf("Verify(no last newline) = %+v, want 3 records and seq 3 named torn", rep)
	}
}

// TestTornTwice: two writers that crashed in a row leave two torn lines;
// the next one chains past both.
func TestTornTwice(t *testing.T) {
	path := writeLog(t, t.TempDir(), 2)
	data, _ := os.ReadFile(path)
	four, _ := os.ReadFile(writeLog(t, t.TempDir(), 3))
	third := lines(four)[2]
	data = append(data, third[:20]...)
	data = append(append(data, '\n'), third[:9]...)
	os.WriteFile(path, data, 0o600)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(testRecord(5)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	after, _ := os.ReadFile(path)
	rep := verifyBytes(t, after)
	if rep.Records != 3 || len(rep.Problems) != 2 || rep.Problems[0].Line != 3 || rep.Problems[1].Line != 4 || rep.Problems[1].Kind != ProblemTorn {
		t.Errorf("Verify = %+v, want 3 records and lines 3 and 4 torn", rep)
	}
}

// TestOpenRefuses: what cannot be an audit log is refused with an error
// that says what it is, and nothing is written to it.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	notLog := filepath.Join(dir, "notes.txt")
	os.WriteFile(notLog, []byte("my notes\nnothing else\n"), 0o600)
	target := writeLog(t, t.TempDir(), 1)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{dir, "is a directory, not a regular file"},
		{notLog, "it is not an audit log: its last line is not a record; name a new file, or an audit log"},
		{link, "is a symbolic link, not a regular file"},
		{filepath.Join(dir, "missing", "a.jsonl"), "no such file or directory"},
	}
	if fifo := mkfifo(t, dir); fifo != "" {
		cases = append(cases, struct{ path, want string }{fifo, "is a named pipe, not a regular file"})
	}
	for _, c := range cases {
		l, err := Open(c.path)
		if err == nil {
			l.Close()
			t.Errorf("Open(%s) succeeded", c.path)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s) = %v, want it to say %q", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(notLog); string(b) != "my notes\nnothing else\n" {
		t.Errorf("the file that is not a log changed: %q", b)
	}
}

// TestHostileRecords: huge arguments, arguments that are not UTF-8 or
// not JSON, stay one valid line each.
func TestHostileRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	huge, _ := json.Marshal(map[string]string{"content": strings.Repeat("line\n", 400_000)})
	args := []string{string(huge), "{\"path\":\"\xff\xfe\"}", "not json \xff", `{"a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`}
	for i, a := range args {
		call := &core.Call{ID: fmt.Sprint(i), Name: "write_file", Args: json.RawMessage(a), RawArgs: json.RawMessage(a)}
		rec := NewRecord(KindCall, "call", call, &core.Result{Err: &core.Error{Kind: core.KindInvalidArguments, Message: "bad \xff"}})
		if err := l.Append(&rec); err != nil {
			t.Fatalf("Append(args %d) = %v", i, err)
		}
	}
	data, _ := os.ReadFile(path)
	ls := lines(data)
	if len(ls) != len(args) {
		t.Fatalf("%d lines, want %d", len(ls), len(args))
	}
	for i, line := range ls {
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil || !json.Valid(line) {
			t.Errorf("line %d is not JSON: %v", i+1, err)
		}
		if !utf8.Valid(line) {
			t.Errorf("line %d is not UTF-8", i+1)
		}
	}
	if rep := verifyBytes(t, data); !rep.Intact() || rep.Records != len(args) {
		t.Errorf("Verify = %+v", rep)
	}
	var rec Record
	json.Unmarshal(ls[2], &rec)
	if rec.Call.Args == nil || rec.Outcome.Verdict != core.VerdictDeny {
		t.Errorf("not-JSON arguments: %s, verdict %v; want them kept as a string, the call denied", rec.Call.Args, rec.Outcome.Verdict)
	}
}

// TestVerifyNotALog: a file that is not a log at all is named at line 1.
func TestVerifyNotALog(t *testing.T) {
	for _, in := range []string{"\x00\x01\x02binary", "# a README\n\nhello\n", `[1,2,3]` + "\n"} {
		rep := verifyBytes(t, []byte(in))
		p := firstProblem(t, rep, []byte(in))
		if p.Kind != ProblemNotRecord || p.Line != 1 || p.Seq != 1 {
			t.Errorf("Verify(%q) first problem %+v, want line 1 not a record", in, p)
		}
	}
}

// TestOpenHugeTail: a huge last record, then a huge torn line after it,
// are found from the end of the file without reading them whole.
func TestOpenHugeTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	big, _ := json.Marshal(map[string]string{"content": strings.Repeat("y", 3<<20)})
	rec := NewRecord(KindCall, "call", &core.Call{ID: "big", Name: "write_file", Args: big}, &core.Result{})
	if err := l.Append(&rec); err != nil {
		t.Fatal(err)
	}
	l.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":2,"prev":"` + rec.Hash + `","time":"2026","kind":"call","call":{"args":{"content":"` + strings.Repeat("x", 3<<20)) // a writer that stopped
	f.Close()
	l, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	next := testRecord(1)
	if err := l.Append(next); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if next.Seq != 2 || next.Prev != rec.Hash {
		t.Errorf("after the torn line: seq %d prev %s, want 2 after %s", next.Seq, next.Prev, rec.Hash)
	}
	data, _ := os.ReadFile(path)
	if rep := verifyBytes(t, data); rep.Records != 2 || len(rep.Problems) != 1 || rep.Problems[0].Kind != ProblemTorn {
		t.Errorf("Verify = %d records, %+v; want 2 and the torn line", rep.Records, rep.Problems)
	}
}
