package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
)

// TestReplayStopsAtTheRecordedBudget: a replay is priced as the provider
// it recorded, so a cost budget stops the replayed run where it stopped
// the recorded one; unpriced, the replay would ask for a request past its
// recording.
func TestReplayStopsAtTheRecordedBudget(t *testing.T) {
	u := provider.Usage{InputTokens: 1000, OutputTokens: 500}
	s := &script{steps: []func(provider.Request) provider.Response{
		callsUsing(u, tc("c1", "x", `{}`)), callsUsing(u, tc("c2", "x", `{}`)), used(u), used(u),
	}}
	var rec bytes.Buffer
	run := func(p provider.Provider) (costs []string, stops []string) {
		t.Helper()
		a := newAgent(t, s, WithProvider(p), WithBudget(NewBudget(Limits{Cost: 0.00475}, fakePrices{})))
		counted(t, a, "x")
		for _, prompt := range []string{"go", "again"} {
			reply, err := a.Run(context.Background(), prompt)
			if err != nil {
				t.Fatalf("%s: %v", prompt, err)
			}
			costs = append(costs, fmt.Sprintf("%.6f %v", reply.Cost, reply.CostKnown))
			stops = append(stops, reply.Stop)
		}
		return costs, stops
	}
	recCosts, recStops := run(replay.Record(s.provider(), &rec))
	if strings.Join(recStops, " ") != "final budget" {
		t.Fatalf("recorded stops %q, want final then budget", recStops)
	}
	player, err := replay.Load(bytes.NewReader(rec.Bytes()), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	costs, stops := run(player)
	if strings.Join(costs, ",") != strings.Join(recCosts, ",") || strings.Join(stops, " ") != strings.Join(recStops, " ") {
		t.Errorf("replayed costs %q and stops %q, recorded %q and %q", costs, stops, recCosts, recStops)
	}
	if player.Remaining() != 0 {
		t.Errorf("%d recorded requests not replayed", player.Remaining())
	}
}

// TestReplaySizedAsRecorded: a replay's context window is that of the
// provider of its next recorded request; after the last, the last's.
func TestReplaySizedAsRecorded(t *testing.T) {
	rec := `{"provider":"ollama:qwen3","request":{"messages":[{"role":"user","content":"a"}]},"response":{"content":"one"}}
{"provider":"anthropic:claude-sonnet-4-5","request":{"messages":[{"role":"user","content":"b"}]},"response":{"content":"two"}}
`
	player, err := replay.Load(strings.NewReader(rec), "two.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(WithProvider(player))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	want := []int{OllamaContextWindow, KnownContextWindow("anthropic", "claude-sonnet-4-5"), KnownContextWindow("anthropic", "claude-sonnet-4-5")}
	if want[1] == 0 {
		t.Fatal("claude-sonnet-4-5 has no known window")
	}
	for i, prompt := range []string{"a", "b", ""} {
		if got := a.ContextWindow(); got != want[i] {
			t.Errorf("before request %d the window is %d, want %d", i+1, got, want[i])
		}
		if prompt == "" {
			break
		}
		if _, err := player.Complete(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: prompt}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// An empty recording answers for no one: the replay's own name, which
	// has no window.
	empty, err := replay.Load(strings.NewReader(""), "empty.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := provider.Identity(empty); got != "replay:empty.jsonl" {
		t.Errorf("an empty recording's identity %q", got)
	}
	var pe *provider.Error
	if _, err := empty.Complete(context.Background(), provider.Request{}, nil); !errors.As(err, &pe) || pe.Kind != provider.ErrDiverged {
		t.Errorf("an empty recording answered: %v", err)
	}
}

// TestReplayCompactsAsRecorded: a run against ollama:qwen3 (a 4,096-token
// window) compacts; its replay, sized as the recorded provider, compacts
// at the same requests and so never leaves the recording.
func TestReplayCompactsAsRecorded(t *testing.T) {
	turns := 0
	model := provider.Func{Label: "ollama:qwen3", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		if req.System == SummaryInstruction {
			return provider.Response{Content: "the files were read"}, nil
		}
		if turns++; turns <= 8 {
			return provider.Response{ToolCalls: []provider.ToolCall{{Name: "big", Args: []byte(`{}`)}}}, nil
		}
		return provider.Response{Content: "done"}, nil
	}}
	var rec bytes.Buffer
	run := func(p provider.Provider) int {
		t.Helper()
		compactions := 0
		a, err := New(WithProvider(p), WithPermissions(executor.PermissionsAllowAll), WithObserver(func(e Event) {
			if e.Type == "compaction" {
				compactions++
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		big := strings.Repeat("a line of a big file\n", 200) // ~1,050 tokens
		if err := a.RegisterTools(goTool("big", func(context.Context, json.RawMessage) (any, error) { return big, nil })); err != nil {
			t.Fatal(err)
		}
		reply, err := a.Run(context.Background(), "read the big file again and again")
		if err != nil || reply.Text != "done" {
			t.Fatalf("%v, reply %q", err, reply.Text)
		}
		return compactions
	}
	recorded := run(replay.Record(model, &rec))
	if recorded == 0 {
		t.Fatal("the recorded run never compacted")
	}
	player, err := replay.Load(bytes.NewReader(rec.Bytes()), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if replayed := run(player); replayed != recorded {
		t.Errorf("the replay compacted %d times, the recorded run %d", replayed, recorded)
	}
	if player.Remaining() != 0 {
		t.Errorf("%d recorded requests not replayed", player.Remaining())
	}
}
