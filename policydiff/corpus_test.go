package policydiff_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/audit"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
)

// The policies of the generated corpus. NEW is OLD with a line more at
// the top (every source moves, which is no change), a hook that denies
// curl, and writes allowed under docs/ too.
const (
	oldPolicy = `def no_secrets(call):
    for p in call.effects["reads"]:
        if p.endswith(".env"):
            return deny("%s may hold secrets" % p)

before(no_secrets)

def src_writes(call):
    for p in call.effects["writes"]:
        if not path.within(p, "src"):
            return deny("writes only under src/, not %s" % p)
    if call.effects["writes"]:
        return allow("writes under src/")

before(src_writes)
`
	newPolicy = `# reviewed in the policy change
def no_secrets(call):
    for p in call.effects["reads"]:
        if p.endswith(".env"):
            return deny("%s may hold secrets" % p)

before(no_secrets)

def src_writes(call):
    for p in call.effects["writes"]:
        if not (path.within(p, "src") or path.within(p, "docs")):
            return deny("writes only under src/, not %s" % p)
    if call.effects["writes"]:
        return allow("writes under src/")

before(src_writes)

def no_curl(call):
    for run in call.effects["shell"]:
        if "curl" in run["command"]:
            return deny("no network from the shell: curl")

before(no_curl)
`
)

// corpus is a generated set of recorded calls in every source format,
// with the calls a diff of oldPolicy and newPolicy must report.
type corpus struct {
	workdir string
	sources []string
	calls   int            // calls to re-decide
	skipped int            // observe records
	changed map[string]int // "at id" → kind of call (0: curl, 1: a docs write)
}

// recorded is the call of kind i%20 (see genCorpus), its tool, arguments
// and whether the policy change changes it. Kinds 7 to 19 are the same
// call again and again, unless u makes them differ.
func recorded(i int, workdir, u string) (tool string, args string, changeKind int) {
	switch i % 20 {
	case 0:
		return "bash", fmt.Sprintf(`{"command":"curl -s https://example.com/%d | head"}`, i), 0
	case 1:
		return "write_file", fmt.Sprintf(`{"path":"docs/page%d.md","content":"x"}`, i), 1
	case 2, 3, 4:
		return "read_file", fmt.Sprintf(`{"path":"src/file%d.go"}`, i), -1
	case 5, 6:
		return "write_file", fmt.Sprintf(`{"path":"./src/x/../new%d.go","content":"package x"}`, i), -1
	case 7, 8:
		return "bash", `{"command":"ls -la src` + u + ` && go test ./..."}`, -1
	case 9:
		return "read_file", `{"path":"config` + u + `/.env"}`, -1
	case 10:
		return "grep", `{"pattern":"TODO` + u + `","path":"src"}`, -1
	case 11:
		return "frobnicate", `{"x":"` + u + `"}`, -1 // an unknown tool
	case 12:
		return "read_file", `{"path":"../../etc/passwd` + u + `"}`, -1 // leaves the workdir
	case 13:
		return "write_file", fmt.Sprintf(`{"path":%q,"content":"y"}`, filepath.Join(workdir, "src", "abs"+u+".go")), -1
	case 14:
		return "edit_file", `{"path":"src/a` + u + `.go","old_string":"a","new_string":"b"}`, -1
	case 15:
		return "glob", `{"pattern":"**/*` + u + `.go"}`, -1
	case 16:
		return "write_file", `{"path":"README` + u + `.md","content":"z"}`, -1 // denied under both
	case 17:
		return "read_file", `not json` + u, -1
	case 18:
		return "bash", `{"command":"echo curl` + u + `"}`, 0 // the hook is naive: a change too
	}
	return "list_dir", `{"path":"d` + u + `"}`, -1
}

// genCorpus writes n calls into dir: 80% in an audit log (with an
// observe record every 25 lines, skipped), 10% in a saved session, 10%
// in a recording. With distinct, no two calls are the same call.
func genCorpus(tb testing.TB, n int, distinct bool) corpus {
	tb.Helper()
	dir := tb.TempDir()
	workdir := filepath.Join(dir, "work")
	must(tb, os.MkdirAll(filepath.Join(workdir, "src"), 0o755))
	c := corpus{workdir: workdir, changed: map[string]int{}}
	nAudit, nSession := n*8/10, n/10
	nRec := n - nAudit - nSession

	// The audit log, in the line format of package audit.
	var log bytes.Buffer
	prev, line, seq := "", 0, uint64(0)
	origins := []string{"model", "person", "hook", "mcp"}
	appendRecord := func(r audit.Record) {
		seq++
		r.Seq, r.Prev, r.Time = seq, prev, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		b, err := json.Marshal(r)
		must(tb, err)
		body := bytes.TrimSuffix(b, []byte(`,"hash":""}`))
		sum := sha256.Sum256(body)
		prev = hex.EncodeToString(sum[:])
		log.Write(body)
		fmt.Fprintf(&log, `,"hash":%q}`+"\n", prev)
		line++
	}
	for i := 0; i < nAudit; i++ {
		if i%25 == 24 {
			appendRecord(audit.Record{Kind: audit.KindObserve, Call: audit.Call{Tool: "Bash", Args: json.RawMessage(`{}`), Origin: "hook"}})
			c.skipped++
		}
		tool, args, kind := recorded(i, workdir, unique(i, distinct))
		wd := workdir
		if i%7 == 0 {
			wd = "" // an older record: the diff's workdir
		}
		rec := audit.Call{ID: fmt.Sprintf("call_%d", i), Tool: tool, Origin: origins[(i/20)%4], WorkDir: wd,
			Args: json.RawMessage(`{"canonical":true}`), RawArgs: json.RawMessage(args)}
		if !json.Valid(rec.RawArgs) {
			rec.RawArgs, _ = json.Marshal(args) // a raw string: not an object
		}
		k := audit.KindCall
		if i%3 == 0 {
			k = audit.KindDecide
		}
		appendRecord(audit.Record{Kind: k, Via: "run", Call: rec, Outcome: audit.Outcome{Verdict: core.VerdictAllow}})
		if kind >= 0 {
			c.changed[fmt.Sprintf("%s:%d %s", filepath.Join(dir, "audit.jsonl"), line, rec.ID)] = kind
		}
	}
	auditFile := filepath.Join(dir, "audit.jsonl")
	must(tb, os.WriteFile(auditFile, log.Bytes(), 0o600))

	// A saved session, written by package session: ten calls a message.
	tb.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	st := &session.Store{Workdir: workdir}
	s, err := st.Create("generated", "replay")
	must(tb, err)
	var ids []string
	for i := 0; i < nSession; {
		m := provider.Message{Role: provider.RoleAssistant}
		for j := 0; j < 10 && i < nSession; j, i = j+1, i+1 {
			tool, args, _ := recorded(i, workdir, unique(i, distinct))
			id := fmt.Sprintf("s%d", i)
			ids = append(ids, id)
			tc := provider.ToolCall{ID: id, Name: tool, Args: json.RawMessage(args)}
			if !json.Valid(tc.Args) {
				tc.Args, tc.InvalidArgs = nil, args
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		must(tb, s.Append(provider.Message{Role: provider.RoleUser, Content: "go on"}, nil))
		must(tb, s.Append(m, nil))
	}
	must(tb, s.Commit(1, provider.Usage{}))
	must(tb, s.Close())
	sessLines := lineOf(tb, s.Path(), ids)
	for i, id := range ids {
		if _, _, kind := recorded(i, workdir, unique(i, distinct)); kind >= 0 {
			c.changed[fmt.Sprintf("%s:%d %s", s.Path(), sessLines[id], id)] = kind
		}
	}

	// A recording: five calls a response.
	var rec bytes.Buffer
	for i, l := 0, 1; i < nRec; l++ {
		resp := &provider.Response{StopReason: "tool_use"}
		for j := 0; j < 5 && i < nRec; j, i = j+1, i+1 {
			tool, args, kind := recorded(i, workdir, unique(i, distinct))
			tc := provider.ToolCall{ID: fmt.Sprintf("r%d", i), Name: tool, Args: json.RawMessage(args)}
			if !json.Valid(tc.Args) {
				tc.Args, tc.InvalidArgs = nil, args
			}
			resp.ToolCalls = append(resp.ToolCalls, tc)
			if kind >= 0 {
				c.changed[fmt.Sprintf("%s:%d %s", filepath.Join(dir, "model.rec"), l, tc.ID)] = kind
			}
		}
		b, err := json.Marshal(replay.Entry{Provider: "openai", Request: provider.Request{Model: "m",
			Messages: []provider.Message{{Role: provider.RoleUser, Content: "go"}}}, Response: resp})
		must(tb, err)
		rec.Write(append(b, '\n'))
	}
	recFile := filepath.Join(dir, "model.rec")
	must(tb, os.WriteFile(recFile, rec.Bytes(), 0o600))

	c.sources = []string{auditFile, s.Path(), recFile}
	c.calls = n
	return c
}

func unique(i int, distinct bool) string {
	if distinct {
		return fmt.Sprint(i)
	}
	return ""
}

// lineOf finds the line of path where each tool call id is recorded.
func lineOf(tb testing.TB, path string, ids []string) map[string]int {
	b, err := os.ReadFile(path)
	must(tb, err)
	at := map[string]int{}
	for n, l := range strings.Split(string(b), "\n") {
		for _, id := range ids {
			if strings.Contains(l, `"id":"`+id+`"`) {
				at[id] = n + 1
			}
		}
	}
	return at
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
