package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
)

// testRecord is record i of a test log: a call with arguments that hold
// what JSON must escape.
func testRecord(i int) *Record {
	args, _ := json.Marshal(map[string]any{"command": fmt.Sprintf("echo %d \"quoted\"\nnext line <&>", i), "n": i})
	call := &core.Call{ID: fmt.Sprintf("call_%d", i), Name: "bash", Args: args, Origin: core.OriginModel, WorkDir: "/work"}
	res := &core.Result{ForLLM: fmt.Sprint(i), Duration: time.Millisecond,
		Decisions: []core.Decision{{Stage: core.StageApproval, Hook: "default", Verdict: core.VerdictAllow, Reason: "bash is read-only"}}}
	rec := NewRecord(KindCall, "run", call, res)
	rec.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &rec
}

// writeLog appends n test records to a new log in dir and returns its
// path.
func writeLog(t testing.TB, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		if err := l.Append(testRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

var (
	logsMu sync.Mutex
	logs   = map[int][]byte{}
)

// validLog returns the bytes of a log of n records, made once per n.
func validLog(t testing.TB, n int) []byte {
	logsMu.Lock()
	defer logsMu.Unlock()
	if b, ok := logs[n]; ok {
		return b
	}
	b, err := os.ReadFile(writeLog(t, t.TempDir(), n))
	if err != nil {
		t.Fatal(err)
	}
	logs[n] = b
	return b
}

// lines splits a log into its lines, each with its newline.
func lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func verifyBytes(t testing.TB, b []byte) Report {
	t.Helper()
	rep, err := Verify(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// firstProblem is the report's first problem, failing the test when
// there is none.
func firstProblem(t testing.TB, rep Report, log []byte) Problem {
	t.Helper()
	if rep.Intact() {
		t.Fatalf("Verify found no problem in\n%s", log)
	}
	return rep.Problems[0]
}
