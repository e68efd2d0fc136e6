package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestBeforeHooks: the registered before hooks come back in the order a
// call meets them (tool-specific first), with their sources, and the
// list is a copy that later registrations do not change.
func TestBeforeHooks(t *testing.T) {
	ex := executor.New(core.NewRegistry())
	none := func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }
	if err := ex.AddBefore(core.BeforeHook{Name: "g1", Func: none, Source: "p.star:3"},
		core.BeforeHook{Name: "t1", Tools: []string{"bash"}, Func: none, Source: "p.star:7"}); err != nil {
		t.Fatal(err)
	}
	got := ex.BeforeHooks()
	if err := ex.AddBefore(core.BeforeHook{Name: "g2", Func: none}); err != nil {
		t.Fatal(err)
	}
	names := func(hs []core.BeforeHook) string {
		var s []string
		for _, h := range hs {
			s = append(s, h.Name+"@"+h.Source)
		}
		return strings.Join(s, " ")
	}
	if want := "t1@p.star:7 g1@p.star:3"; names(got) != want {
		t.Errorf("BeforeHooks = %s, want %s", names(got), want)
	}
	if want := "t1@p.star:7 g1@p.star:3 g2@"; names(ex.BeforeHooks()) != want {
		t.Errorf("after another AddBefore: %s, want %s", names(ex.BeforeHooks()), want)
	}
}
