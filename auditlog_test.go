package agentsh

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/audit"
	"github.com/agentsh/agentsh/core"
)

const auditPolicy = `
tool(name = "inner", fn = lambda args: "in", parameters = {"type": "object"})
tool(name = "outer", fn = lambda args: invoke_tool("inner", {}).output + "+out", parameters = {"type": "object"})

def no_secrets(call):
    if "password" in call.args.get("text", ""):
        return deny("no passwords")
before(no_secrets, tools = ["outer"])
`

// auditShell is a shell with WithAudit(path), auditPolicy loaded, and
// its warnings gathered.
func auditShell(t *testing.T, path string) (*Shell, *[]string) {
	t.Helper()
	var (
		mu    sync.Mutex
		warns []string
	)
	policy := filepath.Join(t.TempDir(), "policy.star")
	os.WriteFile(policy, []byte(auditPolicy), 0o600)
	sh, err := New(WithAudit(path), WithWorkDir(t.TempDir()), WithOutput(io.Discard), func(c *Config) {
		c.AuditVia = "run"
		c.Warn = func(event, msg string) {
			mu.Lock()
			defer mu.Unlock()
			warns = append(warns, event+": "+msg)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Load(context.Background(), policy); err != nil {
		t.Fatal(err)
	}
	return sh, &warns
}

func readRecords(t *testing.T, path string) []audit.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []audit.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestWithAudit: every call that ends in the pipeline leaves a record —
// a nested call, a call a policy denied, a call of no tool — and the log
// verifies.
func TestWithAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sh, warns := auditShell(t, path)
	ctx := context.Background()
	if res, _ := sh.InvokeTool(ctx, "outer", json.RawMessage(`{}`)); !res.OK() || res.ForLLM != "in+out" {
		t.Fatalf("outer: %v %q", res.Err, res.ForLLM)
	}
	if res, _ := sh.InvokeTool(ctx, "outer", json.RawMessage(`{"text": "my password"}`)); res.OK() {
		t.Fatal("the denied call ran")
	}
	sh.InvokeTool(ctx, "nope", nil)
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, path)
	type row struct{ tool, verdict, hook, reason string }
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Call.Tool, r.Outcome.Verdict.String(), r.Outcome.Hook, r.Outcome.Reason})
		if r.Kind != audit.KindCall || r.Via != "run" || r.Call.Origin != "person" {
			t.Errorf("record %d: kind %q via %q origin %q, want call, run, person", r.Seq, r.Kind, r.Via, r.Call.Origin)
		}
	}
	want := []row{
		{"inner", "allow", "default", "a person's calls run unless a policy decides"}, // nested: ends first
		{"outer", "allow", "default", "a person's calls run unless a policy decides"},
		{"outer", "deny", "no_secrets", "no passwords"},
		{"nope", "deny", "default", `unknown tool "nope"`}, // as core.Settled names it
	}
	if len(got) != len(want) {
		t.Fatalf("records %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].tool != want[i].tool || got[i].verdict != want[i].verdict || got[i].hook != want[i].hook || !strings.HasPrefix(got[i].reason, want[i].reason) {
			t.Errorf("record %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
	if d := recs[2].Decisions; len(d) == 0 || !strings.HasSuffix(recs[2].Outcome.Source, "policy.star:5") {
		t.Errorf("the denied call's decisions %+v, source %q; want the deny with its file:line", d, recs[2].Outcome.Source)
	}
	f, _ := os.Open(path)
	defer f.Close()
	rep, err := VerifyAudit(f, recs[1].Hash)
	if err != nil || !rep.Intact() || rep.Records != 4 {
		t.Errorf("VerifyAudit = %+v, %v; want 4 intact records", rep, err)
	}
	if len(*warns) != 0 {
		t.Errorf("warnings %q", *warns)
	}
}

// TestAuditWriteFailure: a record that cannot be written is reported
// once, and every call after it is refused before it runs.
func TestAuditWriteFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sh, warns := auditShell(t, path)
	defer sh.Close()
	ctx := context.Background()
	sh.audit.log.Close() // every Append fails from now on
	if res, _ := sh.InvokeTool(ctx, "inner", nil); !res.OK() {
		t.Fatalf("the first call (its record fails after it ran): %v", res.Err)
	}
	for range 2 {
		res, _ := sh.InvokeTool(ctx, "inner", nil)
		if res.OK() || res.Kind() != core.KindRejected || !strings.Contains(res.Err.Error(), "not run: the audit log "+path+" could not be written") {
			t.Fatalf("a call after the failure: %v, want it refused", res.Err)
		}
	}
	if len(*warns) != 1 || !strings.HasPrefix((*warns)[0], "audit_error: the audit log could not be written") || !strings.Contains((*warns)[0], "from now on every call is refused") {
		t.Errorf("warnings %q, want one audit_error", *warns)
	}
}

// TestWithAuditRefused: a path that cannot be an audit log is an
// OptionError of WithAudit.
func TestWithAuditRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := New(WithAudit(dir), WithOutput(io.Discard))
	var oe *OptionError
	if err == nil || !errors.As(err, &oe) || oe.Option != "WithAudit" || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("New(WithAudit(dir)) = %v, want an OptionError of WithAudit", err)
	}
}
