package core_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// hostileArgs are arguments whose violations, listed whole, made an error
// message as large as the input times the schema.
func hostileArgs() (schema string, args json.RawMessage) {
	var enum []string
	for i := 0; i < 100; i++ {
		enum = append(enum, fmt.Sprintf("%q", strings.Repeat(string(rune('a'+i%26)), 100)+fmt.Sprint(i)))
	}
	schema = `{"type":"object","properties":{"items":{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}}},"additionalProperties":false}`
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"bad"`)
	}
	b.WriteString(`]`)
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, `,"%s%d":1`, strings.Repeat("x", 200), i)
	}
	b.WriteString(`}`)
	return schema, json.RawMessage(b.String())
}

// TestViolationsAreBounded: every violation is kept, in the stable order,
// but each is cut to MaxViolationBytes, and the error message lists only
// the first MaxListedViolations and says how many more there were.
func TestViolationsAreBounded(t *testing.T) {
	schema, args := hostileArgs()
	s := compile(t, schema)
	vs := s.Validate(args)
	if len(vs) != 2001 { // 2000 items and the root's unexpected properties
		t.Fatalf("got %d violations, want 2001", len(vs))
	}
	for _, v := range vs {
		if len(v.Pointer) > core.MaxViolationBytes+len("…") || len(v.Message) > core.MaxViolationBytes+len("…") {
			t.Fatalf("violation of %d+%d bytes: %.80s…", len(v.Pointer), len(v.Message), v)
		}
	}
	if vs[0].Pointer != "" || !strings.HasSuffix(vs[0].Message, "…") || !strings.HasPrefix(vs[0].Message, "additionalProperties 'x") {
		t.Errorf("first violation %.100q, want the root's cut list of properties", vs[0])
	}
	again := s.Validate(args)
	for i := range vs {
		if vs[i] != again[i] {
			t.Fatalf("violation %d differs between runs: %q vs %q", i, vs[i], again[i])
		}
	}
	msg := core.ViolationsText(vs)
	if n := len(msg); n > (core.MaxListedViolations+1)*(2*core.MaxViolationBytes+16) {
		t.Errorf("message is %d bytes", n)
	}
	if got := strings.Count(msg, "; ") + 1; got != core.MaxListedViolations {
		t.Errorf("message lists %d violations, want %d", got, core.MaxListedViolations)
	}
	if !strings.HasSuffix(msg, " (and 1981 more violations)") || !strings.HasPrefix(msg, "(root): additionalProperties") ||
		!strings.Contains(msg, "; /items/0: value must be one of") {
		t.Errorf("message = %.200q … %.100q", msg, msg[len(msg)-100:])
	}
	few := []core.Violation{{Pointer: "/a", Message: "m1"}, {Message: "m2"}}
	if got, want := core.ViolationsText(few), "/a: m1; (root): m2"; got != want {
		t.Errorf("ViolationsText(few) = %q, want %q", got, want)
	}
}
