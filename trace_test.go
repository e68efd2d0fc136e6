package agentsh_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// tracePolicy denies one write and asks about every other.
const tracePolicy = `def guard(call):
    if call.name != "write_file":
        return None
    if call.args["path"] == "secret.txt":
        return deny("secret.txt is off limits")
    return ask("write " + call.args["path"])

before(guard)
`

// scriptedTree answers each conversation by the steps of its first
// prompt, so a subagent gets its own answers.
func scriptedTree(steps map[string][]provider.Response) provider.Provider {
	var mu sync.Mutex
	seen := map[string]int{}
	return provider.Func{Label: "scripted", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		prompt := req.Messages[0].Content
		mu.Lock()
		n := seen[prompt]
		seen[prompt]++
		mu.Unlock()
		if n >= len(steps[prompt]) {
			return provider.Response{}, fmt.Errorf("prompt %q has %d steps; request %d is one too many", prompt, len(steps[prompt]), n+1)
		}
		return steps[prompt][n], nil
	}}
}

func toolCall(id, name string, args any) provider.ToolCall {
	b, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Args: b}
}

// tracedRun runs an agent with a subagent, a denied call and an approved
// ask, and returns its spans rendered as a tree.
func tracedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.star")
	if err := os.WriteFile(policy, []byte(tracePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	usage := provider.Usage{InputTokens: 120, OutputTokens: 30}
	model := scriptedTree(map[string][]provider.Response{
		"tidy up": {
			{ToolCalls: []provider.ToolCall{toolCall("t1", "task", map[string]any{"prompt": "look around"})}, StopReason: "tool_use", Usage: usage},
			{ToolCalls: []provider.ToolCall{
				toolCall("w1", "write_file", map[string]any{"path": "secret.txt", "content": "x"}),
				toolCall("w2", "write_file", map[string]any{"path": "todo.txt", "content": "tidy\n"}),
			}, StopReason: "tool_use", Usage: usage},
			{Content: "done", StopReason: "end_turn", Usage: usage},
		},
		"look around": {
			{ToolCalls: []provider.ToolCall{toolCall("r1", "read_file", map[string]any{"path": "notes.txt"})}, StopReason: "tool_use", Usage: usage},
			{Content: "it says hello", StopReason: "end_turn", Usage: usage},
		},
	})
	approver := core.ApproverFunc(func(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{Verdict: core.VerdictAllow, Reason: "fine by the test"}, nil
	})
	sh := newShell(t, agentsh.WithWorkDir(dir), agentsh.WithProvider(model), agentsh.WithApprover(approver),
		agentsh.WithScripts(policy), agentsh.WithTracerProvider(tp), agentsh.WithOutput(new(strings.Builder)))
	ctx, root := tp.Tracer("test").Start(context.Background(), "agentsh run")
	reply, err := sh.Ask(ctx, "tidy up")
	root.End()
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if reply.Text != "done" {
		t.Fatalf("reply = %q, want done", reply.Text)
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(renderSpans(rec.Ended()), dir, "DIR")
}

// renderSpans draws spans as a tree by their parent links, children in
// the order they started, with their attributes, events and status:
// everything but IDs and times, which differ between runs.
func renderSpans(spans []sdktrace.ReadOnlySpan) string {
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	for _, s := range spans {
		parent := ""
		if s.Parent().IsValid() {
			parent = s.Parent().SpanID().String()
			if !ids[parent] {
				parent = "missing parent " + parent
			}
		}
		children[parent] = append(children[parent], s)
	}
	var b strings.Builder
	var draw func(parent string, depth int)
	draw = func(parent string, depth int) {
		kids := children[parent]
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].StartTime().Before(kids[j].StartTime()) })
		for _, s := range kids {
			pad := strings.Repeat("  ", depth)
			fmt.Fprintf(&b, "%s%s", pad, s.Name())
			if st := s.Status(); st.Code.String() != "Unset" {
				fmt.Fprintf(&b, " [%s: %s]", st.Code, st.Description)
			}
			b.WriteString("\n")
			attrs := s.Attributes()
			sort.Slice(attrs, func(i, j int) bool { return attrs[i].Key < attrs[j].Key })
			for _, a := range attrs {
				fmt.Fprintf(&b, "%s  . %s = %s\n", pad, a.Key, a.Value.Emit())
			}
			for _, e := range s.Events() {
				fmt.Fprintf(&b, "%s  ! %s", pad, e.Name)
				for _, a := range e.Attributes {
					fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.Emit())
				}
				b.WriteString("\n")
			}
			draw(s.SpanContext().SpanID().String(), depth+1)
		}
	}
	draw("", 0)
	for parent := range children {
		if strings.HasPrefix(parent, "missing parent") {
			fmt.Fprintf(&b, "%s: %d spans\n", parent, len(children[parent]))
		}
	}
	return b.String()
}

// TestTraceGolden pins the spans of an agent run: their names,
// attributes, events and parent links, the same on every run.
func TestTraceGolden(t *testing.T) {
	golden := filepath.Join("testdata", "traces", "agent_run.txt")
	got := tracedRun(t)
	if again := tracedRun(t); again != got {
		t.Fatalf("the spans differ between two runs:\nfirst:\n%s\nsecond:\n%s", got, again)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestTraceGolden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("spans differ from %s (go test -run TestTraceGolden -update rewrites it after a deliberate change):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// A traced shell without a model fails its ask as an untraced one does,
// and starts no agent span for a run that never began.
func TestTraceWithoutModel(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	sh := newShell(t, agentsh.WithWorkDir(t.TempDir()), agentsh.WithTracerProvider(tp))
	if _, err := sh.Ask(context.Background(), "hello"); err == nil || !strings.Contains(err.Error(), "model") {
		t.Fatalf("Ask without a model: %v, want the error that there is none", err)
	}
	if n := len(rec.Started()); n != 0 {
		t.Fatalf("%d spans started, want none", n)
	}
}
