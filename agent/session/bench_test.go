package session

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// benchSession writes a session of turns turns: a prompt every fifth
// turn, an assistant message with two calls, and two results of about
// 1 KiB each with their decision records.
func benchSession(b *testing.B, turns int) (*Store, string) {
	b.Helper()
	st := &Store{Dir: b.TempDir(), Workdir: "/w"}
	s, err := st.Create("bench", "test")
	if err != nil {
		b.Fatal(err)
	}
	out := strings.Repeat("line of tool output\n", 50)
	dec := []core.Decision{{Stage: core.StageApproval, Hook: "default", Verdict: core.VerdictAllow, Reason: "read-only"}}
	for n := 1; n <= turns; n++ {
		if n%5 == 1 {
			must(b, s.Append(provider.Message{Role: provider.RoleUser, Content: fmt.Sprintf("prompt %d: look at the files", n)}, nil))
		}
		calls := []provider.ToolCall{
			{ID: fmt.Sprint("a", n), Name: "read_file", Args: json.RawMessage(fmt.Sprintf(`{"path": "src/file%d.go"}`, n))},
			{ID: fmt.Sprint("b", n), Name: "grep", Args: json.RawMessage(`{"pattern": "TODO", "path": "."}`)},
		}
		must(b, s.Append(provider.Message{Role: provider.RoleAssistant, Content: "I will read two files.", ToolCalls: calls}, nil))
		for _, c := range calls {
			must(b, s.Append(provider.Message{Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: out}, dec))
		}
		must(b, s.Commit(n, provider.Usage{InputTokens: 1000 * n, OutputTokens: 50}))
	}
	must(b, s.Close())
	return st, s.Path()
}

// BenchmarkResume200 loads a 200-turn session: what --resume reads and
// replays before the first request.
func BenchmarkResume200(b *testing.B) {
	_, path := benchSession(b, 200)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var read int64
	for i := 0; i < b.N; i++ {
		l, err := Load(path)
		if err != nil || l.Turns != 200 {
			b.Fatalf("%v, %d turns", err, l.Turns)
		}
		read = l.Bytes
	}
	b.ReportMetric(float64(fi.Size()), "file-bytes")
	b.ReportMetric(float64(read), "bytes-read/op")
}

// BenchmarkOpen200 opens a 200-turn session for writing: the load, the
// lock and the synced resume record.
func BenchmarkOpen200(b *testing.B) {
	st, path := benchSession(b, 200)
	b.ReportAllocs()
	b.ResetTimer()
	var read int64
	for i := 0; i < b.N; i++ {
		s, l, err := st.Open("bench")
		if err != nil || l.Turns != 200 {
			b.Fatalf("%v", err)
		}
		read = l.Bytes
		s.Close()
	}
	b.StopTimer()
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(fi.Size()), "file-bytes")
	b.ReportMetric(float64(read), "bytes-read/op")
}

// BenchmarkLatestOf50 finds the latest session of a workdir, as
// --continue does, in a store of 50 sessions of 40 turns each: 10 of this
// workdir, 40 of others.
func BenchmarkLatestOf50(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	out := strings.Repeat("line of tool output\n", 50)
	for i := 0; i < 50; i++ {
		st := &Store{Workdir: "/other"}
		if i%5 == 0 {
			st.Workdir = "/w"
		}
		s, err := st.Create(fmt.Sprintf("s%02d", i), "test")
		if err != nil {
			b.Fatal(err)
		}
		for n := 1; n <= 40; n++ {
			must(b, s.Append(provider.Message{Role: provider.RoleUser, Content: fmt.Sprint("prompt ", n)}, nil))
			must(b, s.Append(provider.Message{Role: provider.RoleAssistant, Content: out}, nil))
			must(b, s.Commit(n, provider.Usage{}))
		}
		must(b, s.Close())
	}
	st := &Store{Workdir: "/w"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		info, ok, err := st.Latest("/w")
		if err != nil || !ok || info.Turns != 40 {
			b.Fatalf("%+v %v %v", info, ok, err)
		}
	}
}
