package script

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestNestingLimit: calls that invoke themselves stop at MaxNesting levels
// with an error naming the limit, through InvokeTool and InvokeAll alike;
// calls one after another do not add up.
func TestNestingLimit(t *testing.T) {
	ex := executor.New(core.NewRegistry())
	h := NewHost(ex, nil)
	runs := 0 // tool executions; the calls are nested, so never concurrent
	// pass returns the nested call's failure as this call's.
	pass := func(rs []*ResultInfo, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		return resultOutput(rs[0].R)
	}
	err := ex.Registry().RegisterTools(
		core.Tool{Name: "rec", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
			runs++
			r, err := h.InvokeTool(ctx, "rec", nil, "")
			if err != nil {
				return nil, err
			}
			return pass([]*ResultInfo{r}, nil)
		}},
		core.Tool{Name: "rec_all", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
			runs++
			return pass(h.InvokeAll(ctx, []CallSpec{{Name: "rec_all"}}, "serial", -1))
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rec", "rec_all"} {
		runs = 0
		r, err := h.InvokeTool(context.Background(), name, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.R.OK() || !strings.Contains(r.R.Err.Error(), "calls nested more than 100 deep") {
			t.Errorf("%s: result error %v, want the nesting error", name, r.R.Err)
		}
		if runs != MaxNesting {
			t.Errorf("%s: the tool ran %d times, want %d", name, runs, MaxNesting)
		}
	}
	// Calls one after another each start at the top.
	for i := 0; i < 3*MaxNesting; i++ {
		if _, err := h.InvokeTool(context.Background(), "none", nil, ""); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}
