package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

func outcome(stop string, denials int) agentapi.Outcome {
	r := &agent.Reply{Stop: stop, Turns: 2}
	for i := 0; i < denials; i++ {
		r.Denials = append(r.Denials, agent.Denial{CallID: fmt.Sprintf("c%d", i), Tool: "write", Hook: "policy", Reason: "no"})
	}
	return agentapi.Outcome{Reply: r}
}

// TestExitCodeOf checks every exit code of a headless run and their
// precedence: 2, 128+N, 5, 1, 4, 3, 6, 0.
func TestExitCodeOf(t *testing.T) {
	diverged := &provider.Error{Kind: provider.ErrDiverged, Provider: "replay:x", Message: "request 1 differs"}
	failed := agentapi.Outcome{Reply: &agent.Reply{}, Err: errors.New("model down")}
	schema := outcome(agent.StopSchema, 0)
	schema.Reply.Violations = []core.Violation{{Pointer: "/age", Message: "missing"}}
	lostReplay := agentapi.Outcome{Reply: &agent.Reply{}, Err: fmt.Errorf("ask: %w", diverged)}
	sigterm := &stopped{sig: syscall.SIGTERM}
	tests := []struct {
		name       string
		err        error
		stop       *stopped
		outs       []agentapi.Outcome
		failOnDeny bool
		want       int
		why        string
	}{
		{"done", nil, nil, []agentapi.Outcome{outcome("final", 0)}, false, exitOK, ""},
		{"no asks", nil, nil, nil, true, exitOK, ""},
		{"denial without the flag", nil, nil, []agentapi.Outcome{outcome("final", 1)}, false, exitOK, ""},
		{"denied", nil, nil, []agentapi.Outcome{outcome("final", 0), outcome("final", 2)}, true, exitDenied, "--fail-on-deny: 2 calls were denied; the first, write (c0), by policy: no"},
		{"max turns", nil, nil, []agentapi.Outcome{outcome("final", 0), outcome(agent.StopMaxTurns, 0)}, false, exitMaxTurns, "turn limit after 2 turns"},
		{"max turns over denial", nil, nil, []agentapi.Outcome{outcome("final", 1), outcome(agent.StopMaxTurns, 0)}, true, exitMaxTurns, "turn limit"},
		{"budget", nil, nil, []agentapi.Outcome{outcome(agent.StopBudget, 0)}, false, exitBudget, "budget was exhausted"},
		{"budget over max turns", nil, nil, []agentapi.Outcome{outcome(agent.StopMaxTurns, 0), outcome(agent.StopBudget, 0)}, false, exitBudget, "budget"},
		{"schema", nil, nil, []agentapi.Outcome{outcome(agent.StopBudget, 0), schema}, false, exitError, "did not validate against the schema: /age: missing"},
		{"caught ask error", nil, nil, []agentapi.Outcome{outcome(agent.StopBudget, 0), failed}, false, exitError, "an ask failed: model down"},
		{"script error", errors.New("boom"), nil, []agentapi.Outcome{outcome(agent.StopBudget, 0)}, false, exitError, ""},
		{"diverged script error", fmt.Errorf("ask: %w", diverged), nil, nil, false, exitDiverged, ""},
		{"diverged caught", nil, nil, []agentapi.Outcome{failed, lostReplay}, false, exitDiverged, "left the replay's recording"},
		{"diverged over error", errors.New("boom"), nil, []agentapi.Outcome{lostReplay}, false, exitDiverged, "left the replay's recording"},
		{"signal", context.Canceled, sigterm, []agentapi.Outcome{lostReplay}, false, 143, ""},
		{"usage", usagef("bad"), sigterm, nil, false, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, why := exitCodeOf(tt.err, tt.stop, tt.outs, tt.failOnDeny)
			if code != tt.want || !strings.Contains(why, tt.why) || (tt.why == "" && why != "") {
				t.Errorf("exitCodeOf: %d %q, want %d %q", code, why, tt.want, tt.why)
			}
		})
	}
}

// TestResultEvent: the result event sums the asks, lists their denials
// in order, prices only when every ask was priced, and has data only with
// a schema.
func TestResultEvent(t *testing.T) {
	a := outcome("final", 1)
	a.Reply.Usage = provider.Usage{InputTokens: 10, OutputTokens: 2}
	a.Reply.Cost, a.Reply.CostKnown, a.Reply.SessionID = 0.5, true, "s1"
	b := outcome(agent.StopMaxTurns, 1)
	b.Reply.Usage = provider.Usage{InputTokens: 5, CacheReadTokens: 7}
	b.Reply.Cost, b.Reply.CostKnown = 0.25, true
	b.Reply.Denials[0].CallID, b.Reply.Denials[0].Agent = "c9", "agent-2"
	ev := agentsh.ResultEvent([]agentapi.Outcome{a, b}, 3)
	got, err := core.MarshalJSON(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"asks":2,"cost":0.75,"denials":[{"agent":"","call_id":"c0","hook":"policy","reason":"no","tool":"write"},{"agent":"agent-2","call_id":"c9","hook":"policy","reason":"no","tool":"write"}],"event":"result","exit_code":3,"session":"s1","stop":"max_turns","stops":["final","max_turns"],"text":"","tool_calls":0,"turns":4,"usage":{"cache_read_tokens":7,"cache_write_tokens":0,"input_tokens":15,"output_tokens":2}}`
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("result event\n got %s\nwant %s", got, want)
	}

	b.Reply.CostKnown = false
	b.Schema, b.Reply.Data = true, map[string]any{"n": int64(1)}
	ev = agentsh.ResultEvent([]agentapi.Outcome{a, b}, 0)
	if ev["cost"] != nil || ev["data"] == nil || ev["violations"] == nil {
		t.Errorf("cost %v data %v violations %v, want no cost, the data and its (empty) violations", ev["cost"], ev["data"], ev["violations"])
	}
	ev = agentsh.ResultEvent([]agentapi.Outcome{{Reply: &agent.Reply{}, Err: errors.New("x")}}, 1)
	if ev["stop"] != nil || ev["stops"].([]any)[0] != nil {
		t.Errorf("stop %v stops %v, want null for a run that failed before it stopped", ev["stop"], ev["stops"])
	}
	if _, ok := ev["data"]; ok {
		t.Error("data in the result of a run without a schema")
	}
}
