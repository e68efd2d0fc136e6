package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// TestModelCallsNeedConsent: the model's calls of a tool that is not
// read-only ask; without an approver they are refused, the model sees why,
// and the reply lists the denials. A read-only tool runs.
func TestModelCallsNeedConsent(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "look", `{}`), tc("b", "change", `{"n":1}`)),
		answer("done"),
	}}
	a, err := New(WithProvider(s.provider()), WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var changed atomic.Int32
	look := goTool("look", func(context.Context, json.RawMessage) (any, error) { return "seen", nil })
	look.ReadOnly = true
	change := goTool("change", func(context.Context, json.RawMessage) (any, error) { changed.Add(1); return "changed", nil })
	if err := a.RegisterTools(look, change); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if changed.Load() != 0 {
		t.Fatal("the model's call of change ran without consent")
	}
	want := []Denial{{CallID: "b", Tool: "change", Hook: "default",
		Reason: "needs approval: the model called change, which is not read-only; no approver is set", Agent: MainAgentID}}
	if !reflect.DeepEqual(reply.Denials, want) {
		t.Errorf("denials:\n got %+v\nwant %+v", reply.Denials, want)
	}
	msgs := a.Messages()
	if m := msgs[2]; m.Content != "seen" {
		t.Errorf("the read-only call: %+v", m)
	}
	if m := msgs[3]; !m.IsError || !strings.Contains(m.Content, "needs approval") {
		t.Errorf("the model was not told why: %+v", m)
	}
}

// TestApproverDecidesForTheModel: with an approver, the person's answer
// decides, and their reason reaches the model.
func TestApproverDecidesForTheModel(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "change", `{"n":1}`), tc("b", "change", `{"n":2}`)),
		answer("done"),
	}}
	var asked []string
	ap := core.ApproverFunc(func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		asked = append(asked, string(req.Call.Args))
		if strings.Contains(string(req.Call.Args), "2") {
			return core.Approval{Verdict: core.VerdictDeny, Reason: "not two"}, nil
		}
		return core.Approval{Verdict: core.VerdictAllow}, nil
	})
	a, err := New(WithProvider(s.provider()), WithModel("m"), WithApprover(ap))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var changed atomic.Int32
	if err := a.RegisterTools(goTool("change", func(context.Context, json.RawMessage) (any, error) { changed.Add(1); return "changed", nil })); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if changed.Load() != 1 || len(asked) != 2 {
		t.Fatalf("ran %d, asked %v; want one run, two asks", changed.Load(), asked)
	}
	if len(reply.Denials) != 1 || reply.Denials[0].CallID != "b" || reply.Denials[0].Reason != "not approved: not two" || reply.Denials[0].Hook != "approver" {
		t.Errorf("denials: %+v", reply.Denials)
	}
	if m := a.Messages()[3]; !strings.Contains(m.Content, "not approved: not two") {
		t.Errorf("the model was not given the reason: %+v", m)
	}
}
