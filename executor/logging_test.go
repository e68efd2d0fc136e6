package executor_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

func TestLoggingRecords(t *testing.T) {
	tools := []core.Tool{
		{Name: "echo", Func: func(_ context.Context, args json.RawMessage) (any, error) { return "out:" + string(args), nil }},
		{Name: "fail", Func: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("secret-payload-error") }},
		{Name: "guarded", Func: func(context.Context, json.RawMessage) (any, error) { return "never", nil }},
	}
	var mu sync.Mutex
	var recs []executor.LogRecord
	exec := newExec(t, tools)
	must(t, exec.AddBefore(core.BeforeHook{Name: "guard", Tools: []string{"guarded"}, Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return nil, errors.New("no")
	}}))
	must(t, exec.AddAfter(executor.Logging(func(r executor.LogRecord) {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
	})))

	args := json.RawMessage(`{"password":"hunter2"}`)
	okRes, _ := exec.InvokeTool(context.Background(), "echo", args)
	failRes, _ := exec.InvokeTool(context.Background(), "fail", json.RawMessage(`{}`))
	rejRes, _ := exec.InvokeTool(context.Background(), "guarded", json.RawMessage(`{"a":1}`))
	unkRes, _ := exec.InvokeTool(context.Background(), "ghost", nil)
	badRes, _ := exec.InvokeTool(context.Background(), "echo", json.RawMessage(`[1,2]`))

	want := []executor.LogRecord{
		{Tool: "echo", CallID: okRes.CallID, ArgBytes: len(args), ResultBytes: len(okRes.ForLLM), Outcome: "ok", Verdict: "allow", DecidedBy: "default"},
		{Tool: "fail", CallID: failRes.CallID, ArgBytes: 2, ResultBytes: 0, Outcome: "failed", Verdict: "allow", DecidedBy: "default"},
		{Tool: "guarded", CallID: rejRes.CallID, ArgBytes: 7, ResultBytes: 0, Outcome: "rejected", Hook: "guard", Verdict: "deny", DecidedBy: "guard"},
		{Tool: "ghost", CallID: unkRes.CallID, ArgBytes: 2, ResultBytes: 0, Outcome: "unknown_tool", Verdict: "allow", DecidedBy: "default"},
		{Tool: "echo", CallID: badRes.CallID, ArgBytes: 5, ResultBytes: 0, Outcome: "invalid_arguments"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		got := recs[i]
		if got.Duration <= 0 {
			t.Errorf("record %d has no duration", i)
		}
		got.Duration = 0
		if got != w {
			t.Errorf("record %d:\n got  %+v\n want %+v", i, got, w)
		}
		if w.CallID == "" {
			t.Errorf("record %d: result has no call ID", i)
		}
	}
	// Never the payloads.
	var buf bytes.Buffer
	sink := executor.JSONLines(&buf)
	for _, r := range recs {
		sink(r)
	}
	for _, secret := range []string{"hunter2", "password", "secret-payload-error", "out:"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("log output contains the payload %q:\n%s", secret, buf.String())
		}
	}
}

func TestJSONLinesConcurrent(t *testing.T) {
	var buf bytes.Buffer
	tool := core.Tool{Name: "t", ConcurrencySafe: core.Bool(true), Func: func(_ context.Context, args json.RawMessage) (any, error) {
		return strings.Repeat("x", argIndex(args)), nil
	}}
	exec := newExec(t, []core.Tool{tool}, executor.WithExecutionMode(executor.ModeParallel))
	must(t, exec.AddAfter(executor.Logging(executor.JSONLines(&buf))))
	const n = 64
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exec.ExecuteAll(context.Background(), calls)
		}()
	}
	runWithWatchdog(t, "logging batches", wg.Wait)

	sc := bufio.NewScanner(&buf)
	ids := map[string]bool{}
	lines := 0
	for sc.Scan() {
		lines++
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", lines, err, sc.Text())
		}
		for _, k := range []string{"tool", "call_id", "arg_bytes", "result_bytes", "duration_ns", "outcome"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("line %q has no %s", sc.Text(), k)
			}
		}
		var r executor.LogRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		// call i answers i bytes, so each record's sizes must match one call
		if r.Outcome != "ok" || r.Tool != "t" || r.ArgBytes != len(indexArgs(r.ResultBytes)) {
			t.Fatalf("record %+v", r)
		}
		ids[r.CallID] = true
	}
	if lines != 2*n || len(ids) != 2*n {
		t.Fatalf("%d lines with %d distinct call IDs, want %d", lines, len(ids), 2*n)
	}
}

func TestRedactorJSON(t *testing.T) {
	in := json.RawMessage(`{
		"user": "ada",
		"Password": "hunter2",
		"nested": {"API-Key": "k1", "list": [{"access_token": "t1"}, "Bearer abcdefghijklmnop", 7]},
		"CLIENT_SECRET": {"deep": "value"},
		"note": "key AKIAABCDEFGHIJKLMNOP and sk-abcdefghijklmnopqrstu here",
		"big": 12345678901234567890
	}`)
	out := executor.DefaultRedactor.JSON(in)
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("redacted output is not JSON: %v: %s", err, out)
	}
	const m = "[REDACTED]"
	nested := got["nested"].(map[string]any)
	list := nested["list"].([]any)
	checks := []struct {
		what string
		got  any
		want any
	}{
		{"user", got["user"], "ada"},
		{"Password (case-insensitive)", got["Password"], m},
		{"nested API-Key (dashes ignored)", nested["API-Key"], m},
		{"access_token in a list", list[0].(map[string]any)["access_token"], m},
		{"bearer pattern", list[1], m},
		{"number kept", list[2], float64(7)},
		{"object under a secret key", got["CLIENT_SECRET"], m},
		{"patterns inside text", got["note"], "key " + m + " and " + m + " here"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#v, want %#v", c.what, c.got, c.want)
		}
	}
	if !bytes.Contains(out, []byte("12345678901234567890")) {
		t.Errorf("large number lost precision: %s", out)
	}
	for _, secret := range []string{"hunter2", "k1", "t1", "abcdefghijklmnop", "AKIA", "sk-", "value"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("output still contains %q: %s", secret, out)
		}
	}
	// The input is not modified.
	if !bytes.Contains(in, []byte("hunter2")) {
		t.Fatal("redaction changed its input")
	}
}

func TestRedactorNonJSONAndCustom(t *testing.T) {
	out := executor.DefaultRedactor.JSON(json.RawMessage(`not json: Authorization: Bearer abcdefghijk123`))
	var s string
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("non-JSON input should come back as a JSON string: %v: %s", err, out)
	}
	if strings.Contains(s, "abcdefghijk123") || !strings.Contains(s, "not json") {
		t.Fatalf("redacted %q", s)
	}
	if got := executor.DefaultRedactor.String("token ghp_abcdefghijklmnopqrstuvwxyz"); got != "token [REDACTED]" {
		t.Fatalf("String = %q", got)
	}

	r := executor.Redactor{Keys: []string{"ssn"}, Patterns: []*regexp.Regexp{regexp.MustCompile(`\d{3}-\d{4}`)}, Mask: "***"}
	out = r.JSON(json.RawMessage(`{"SSN":"1","phone":"call 555-1234","password":"kept"}`))
	want := `{"SSN":"***","password":"kept","phone":"call ***"}`
	if string(out) != want {
		t.Fatalf("custom redactor: %s, want %s (keys sorted)", out, want)
	}
	var zero executor.Redactor
	if out := zero.JSON(json.RawMessage(`{"password":"x"}`)); string(out) != `{"password":"x"}` {
		t.Fatalf("zero Redactor masked something: %s", out)
	}
}

// TestRedactorTrailingData: input that is not one JSON value ("42 and
// then text") is not JSON, so by the contract it is treated as a string;
// nothing after the first value may be dropped.
func TestRedactorTrailingData(t *testing.T) {
	for _, in := range []string{`42 Authorization: Bearer abcdefghijk123`, `{"a":1} trailing note`} {
		out := executor.DefaultRedactor.JSON(json.RawMessage(in))
		var s string
		if err := json.Unmarshal(out, &s); err != nil {
			t.Errorf("JSON(%q) = %s: input that is not JSON should come back as a redacted string", in, out)
			continue
		}
		if strings.Contains(s, "abcdefghijk123") || !strings.Contains(s, in[:5]) {
			t.Errorf("JSON(%q) = %q", in, s)
		}
	}
}
