package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// HasAfterHooks sees global, tool-specific and a tool's own after hooks,
// and nothing else.
func TestHasAfterHooks(t *testing.T) {
	noop := func(context.Context, *core.Call, *core.Result) error { return nil }
	run := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	ex := executor.New(nil)
	ex.AddBefore(core.BeforeHook{Name: "b", Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }})
	ex.Registry().RegisterTools(core.Tool{Name: "x", Func: run})
	if ex.HasAfterHooks() {
		t.Error("an executor with a before hook and a plain tool has after hooks")
	}
	global := executor.New(nil)
	global.AddAfter(core.AfterHook{Name: "a", Func: noop})
	tool := executor.New(nil)
	tool.AddAfter(core.AfterHook{Name: "a", Func: noop, Tools: []string{"x"}})
	own := executor.New(nil)
	own.Registry().RegisterTools(core.Tool{Name: "x", Func: run, After: []core.AfterFunc{noop}})
	for name, ex := range map[string]*executor.Executor{"global": global, "tool-specific": tool, "a tool's own": own} {
		if !ex.HasAfterHooks() {
			t.Errorf("%s after hook not seen", name)
		}
	}
}
