package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/mcp"
	"github.com/agentsh/agentsh/tools/mcp/serve"
	"github.com/agentsh/agentsh/tools/process"
)

// The CLI adds the flag that fixes a library error, wherever the error
// sits in the chain, and the error stays what it was for errors.Is and
// errors.As.
func TestFlagHints(t *testing.T) {
	_, recording := replay.Load(strings.NewReader("{\n"), "run.jsonl")
	for _, c := range []struct {
		err  error
		flag string
	}{
		{agent.ErrNoProvider, "--model PROVIDER:MODEL"},
		{fmt.Errorf("ask: %w", script.ErrNoModel), "--model PROVIDER:MODEL"},
		{&provider.Error{Kind: provider.ErrUnknownModel, Message: "no such model"}, "--model PROVIDER:MODEL"},
		{&provider.Error{Kind: provider.ErrTimeout, Message: "silent"}, "--model-timeout D"},
		{&provider.Error{Kind: provider.ErrDiverged, Message: "left"}, "--record FILE"},
		{fmt.Errorf("--model: %w", recording), "--record FILE"},
		{&agent.Exhaustion{Budget: "tool_calls", Limit: 2, Spent: 2}, "--max-tool-calls N"},
		{&agent.Exhaustion{Budget: "tokens", Limit: 2, Spent: 2}, "--max-tokens N"},
		{&agent.Exhaustion{Budget: "cost", Limit: 2, Spent: 2}, "--max-cost USD"},
		{&agent.Exhaustion{Budget: "wall", Limit: 2, Spent: 2}, "--max-wall DURATION"},
		{fmt.Errorf("open: %w", session.ErrLocked), "--session OTHER-NAME"},
		{session.ErrExists, "--resume ID"},
		{session.ErrUnusable, "--session OTHER-NAME"},
		{&script.StepBudgetError{Max: 10}, "--max-steps N"},
		{fmt.Errorf("bash: %w", tools.ErrNoSandbox), "--sandbox off"},
		{fmt.Errorf("run: %w", process.ErrInsideSandbox), "--sandbox off"},
		{fmt.Errorf("read pins: %w", mcp.ErrPinsFile), "--pins FILE"},
		{serve.CheckListen("0.0.0.0:80", false), "--token-file FILE"},
		{hookadapter.ErrNoHome, "--project"},
		{hookadapter.CheckExecutable(filepath.Join(os.TempDir(), "agentsh")), "--exe PATH"},
	} {
		if c.err == nil {
			t.Fatalf("no error to hint for %s", c.flag)
		}
		got := withFlagHint(c.err)
		if want := c.err.Error() + "; on the command line, "; !strings.HasPrefix(got.Error(), want) || !strings.Contains(got.Error(), c.flag) {
			t.Errorf("withFlagHint(%q) = %q, want it to go on with %q", c.err, got, c.flag)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("withFlagHint(%q) is no longer the error it hints for", c.err)
		}
		if strings.Contains(c.err.Error(), "--") && !strings.HasPrefix(c.err.Error(), "--model:") {
			t.Errorf("the library's error names a flag: %q", c.err)
		}
	}

	// A single tool's budget has no flag: nothing is added.
	e := &agent.Exhaustion{Budget: "tool", Tool: "bash", Limit: 1, Spent: 1}
	if got := withFlagHint(e); got != error(e) {
		t.Errorf("a tool's budget got a hint: %q", got)
	}
	// Nor to an error no table entry knows.
	plain := errors.New("something else")
	if got := withFlagHint(plain); got != plain {
		t.Errorf("withFlagHint(%q) = %q, want it unchanged", plain, got)
	}

	// A script error keeps its type, position and backtrace, with the
	// hint after its message.
	se := &script.Error{File: "x.star", Line: 3, Col: 1, Msg: "ask: no model", Backtrace: "Traceback", Err: agent.ErrNoProvider}
	got := withFlagHint(fmt.Errorf("run: %w", se))
	var hinted *script.Error
	if !errors.As(got, &hinted) || hinted.Pos() != "x.star:3:1" || hinted.Backtrace != "Traceback" ||
		hinted.Msg != "ask: no model; on the command line, --model PROVIDER:MODEL chooses the model" {
		t.Errorf("script error with a hint: %#v", got)
	}
	if se.Msg != "ask: no model" {
		t.Errorf("the hint changed the original error: %q", se.Msg)
	}
}
