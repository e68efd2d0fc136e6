package session

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

// TestLineCalls: reading a saved session line by line gives the header's
// workdir and each assistant message's calls once, arguments verbatim;
// a replace record repeats none; a line that is no session record is an
// error.
func TestLineCalls(t *testing.T) {
	st := newStore(t, "/w")
	s, err := st.Create("calls", "test")
	must(t, err)
	writeTurn(t, s, 1, "go")
	must(t, s.Replace([]provider.Message{{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read"}}}}, "compact"))
	writeTurn(t, s, 2, "")
	must(t, s.Close())
	b, err := os.ReadFile(s.Path())
	must(t, err)
	var workdirs, calls []string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		wd, tcs, err := LineCalls(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if wd != "" {
			workdirs = append(workdirs, wd)
		}
		for _, tc := range tcs {
			calls = append(calls, tc.ID+" "+tc.Name+" "+string(tc.Args))
		}
	}
	if got, want := strings.Join(workdirs, ","), "/w"; got != want {
		t.Errorf("workdirs %q, want %q", got, want)
	}
	if got, want := strings.Join(calls, "|"), `c1 read { "n": 1 }|c2 read { "n": 2 }`; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	for _, bad := range []string{`{"t":"nope"}`, `{"t":"msg"}`, `[1]`, `{"t":"msg","msg":{"role":"assistant","tool_calls":[{"id":"x","name":"t"}]},"args":["{not json"]}`} {
		if _, _, err := LineCalls([]byte(bad)); err == nil {
			t.Errorf("LineCalls(%s): no error", bad)
		}
	}
}
