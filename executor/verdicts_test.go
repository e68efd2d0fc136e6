package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// A before hook's behaviours for the precedence table.
type behaviour struct {
	name     string
	strength int // 0 none, 1 allow, 2 ask, 3 deny
	rewrite  string
	fn       core.BeforeFunc
}

func behaviours() []behaviour {
	return []behaviour{
		{"none", 0, "", func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }},
		{"allow", 1, "", func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Allow("fine") }},
		{"ask", 2, "", func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Ask("check") }},
		{"deny", 3, "", func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("no") }},
		{"error", 3, "", func(context.Context, *core.Call) (json.RawMessage, error) { return nil, errors.New("broke") }},
		{"panic", 3, "", func(context.Context, *core.Call) (json.RawMessage, error) { panic("hook bug") }},
		{"rewrite", 0, `{"by":"rewrite"}`, func(context.Context, *core.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"by":"rewrite"}`), nil
		}},
		{"rewrite+allow", 1, `{"by":"allow"}`, func(context.Context, *core.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"by":"allow"}`), core.Allow("")
		}},
		{"rewrite+ask", 2, `{"by":"ask"}`, func(context.Context, *core.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"by":"ask"}`), core.Ask("rewritten, check")
		}},
	}
}

var verdictOfStrength = []core.Verdict{core.VerdictNone, core.VerdictAllow, core.VerdictAsk, core.VerdictDeny}

// TestVerdictPrecedence runs every pair of behaviours, one tool-specific
// hook and one global, through InvokeTool and Decide: deny > ask > allow >
// none, a deny (or an error, or a panic) ends the before stages, rewrites
// accumulate, and neither path runs the tool when it must not.
func TestVerdictPrecedence(t *testing.T) {
	for _, h1 := range behaviours() {
		for _, h2 := range behaviours() {
			t.Run(h1.name+"/"+h2.name, func(t *testing.T) {
				var ran atomic.Int32
				var gotArgs json.RawMessage
				tool := core.Tool{Name: "t", Func: func(_ context.Context, args json.RawMessage) (any, error) {
					ran.Add(1)
					gotArgs = args
					return "ran", nil
				}}
				var asked atomic.Int32
				exec := newExec(t, []core.Tool{tool}, executor.WithApprover(core.ApproverFunc(
					func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
						asked.Add(1)
						return core.Approval{Verdict: core.VerdictDeny, Reason: "the person said no"}, nil
					})))
				must(t, exec.AddBefore(core.BeforeHook{Name: "first", Tools: []string{"t"}, Func: h1.fn},
					core.BeforeHook{Name: "second", Func: h2.fn}))

				want := max(h1.strength, h2.strength)
				if h1.strength == 3 {
					want = 3
				}
				wantArgs := `{"in":1}`
				if h1.rewrite != "" {
					wantArgs = h1.rewrite
				}
				if h2.rewrite != "" && h1.strength < 3 {
					wantArgs = h2.rewrite
				}

				rul := exec.Decide(context.Background(), core.Call{Name: "t", Args: json.RawMessage(`{"in":1}`)})
				// A person's call no hook decided would run.
				if wantOutcome := verdictOfStrength[max(want, 1)]; rul.Outcome != wantOutcome {
					t.Errorf("Decide outcome: got %s, want %s (%s)", rul.Outcome, wantOutcome, rul.Reason)
				}
				if ran.Load() != 0 || asked.Load() != 0 {
					t.Fatalf("Decide ran the tool %d times and asked %d times, want neither", ran.Load(), asked.Load())
				}
				if want < 3 && string(rul.Args) != wantArgs {
					t.Errorf("Decide args: got %s, want %s", rul.Args, wantArgs)
				}

				res, _ := exec.InvokeTool(context.Background(), "t", json.RawMessage(`{"in":1}`))
				switch want {
				case 3:
					wantKind := core.KindRejected
					if h1.name == "panic" || (h1.strength < 3 && h2.name == "panic") {
						wantKind = core.KindPanic
					}
					if res.Kind() != wantKind || ran.Load() != 0 {
						t.Fatalf("got kind %q (ran %d), want %q and no run: %v", res.Kind(), ran.Load(), wantKind, res.Err)
					}
				case 2:
					if res.Kind() != core.KindRejected || asked.Load() != 1 || ran.Load() != 0 {
						t.Fatalf("an ask: got kind %q, asked %d, ran %d; want rejected by the approver", res.Kind(), asked.Load(), ran.Load())
					}
					if !strings.Contains(res.Err.Error(), "not approved: the person said no") {
						t.Errorf("message: got %q, want the approver's reason", res.Err)
					}
				default:
					if !res.OK() || ran.Load() != 1 || asked.Load() != 0 {
						t.Fatalf("got %v, ran %d, asked %d; want one run and no ask", res.Err, ran.Load(), asked.Load())
					}
					if string(gotArgs) != wantArgs {
						t.Errorf("tool args: got %s, want %s", gotArgs, wantArgs)
					}
				}

				// The trail: both hooks (the second skipped after a deny by
				// the first), then the approval step unless a hook denied.
				ds := res.Decisions
				if len(ds) < 2 || ds[0].Hook != "first" || ds[1].Hook != "second" {
					t.Fatalf("decisions: got %+v, want first and second", ds)
				}
				if ds[0].Stage != core.StageToolBefore || ds[1].Stage != core.StageGlobalBefore {
					t.Errorf("stages: got %s, %s", ds[0].Stage, ds[1].Stage)
				}
				if ds[0].Verdict != verdictOfStrength[h1.strength] {
					t.Errorf("first's verdict: got %s, want %s", ds[0].Verdict, verdictOfStrength[h1.strength])
				}
				if skipped := h1.strength == 3; ds[1].Skipped != skipped {
					t.Errorf("second skipped: got %v, want %v", ds[1].Skipped, skipped)
				}
				if ds[0].Rewrote != (h1.rewrite != "") {
					t.Errorf("first rewrote: got %v", ds[0].Rewrote)
				}
				if ds[0].Rewrote && (string(ds[0].ArgsBefore) != `{"in":1}` || string(ds[0].ArgsAfter) != h1.rewrite) {
					t.Errorf("first's rewrite: got %s → %s", ds[0].ArgsBefore, ds[0].ArgsAfter)
				}
				approvals := 0
				for _, d := range ds {
					if d.Stage == core.StageApproval {
						approvals++
					}
				}
				wantApprovals := map[int]int{0: 1, 1: 1, 2: 2, 3: 0}[want]
				if approvals != wantApprovals {
					t.Errorf("approval records: got %d, want %d: %+v", approvals, wantApprovals, ds)
				}
			})
		}
	}
}

func writeTool(ran *atomic.Int32) core.Tool {
	return core.Tool{Name: "write", Func: func(context.Context, json.RawMessage) (any, error) {
		ran.Add(1)
		return "wrote", nil
	}}
}

func readTool() core.Tool {
	t := okTool("read")
	t.ReadOnly = true
	return t
}

// TestDefaultByOrigin: with no opinion, a person's call runs; a model's
// runs only for a read-only tool and otherwise asks, which without an
// approver is a rejection wrapping ErrNeedsApproval.
func TestDefaultByOrigin(t *testing.T) {
	var ran atomic.Int32
	exec := newExec(t, []core.Tool{writeTool(&ran), readTool()})
	ctx := context.Background()

	if res := exec.Invoke(ctx, core.Call{Name: "write"}); !res.OK() {
		t.Fatalf("a person's call: %v", res.Err)
	}
	if res := exec.Invoke(ctx, core.Call{Name: "read", Origin: core.OriginModel}); !res.OK() {
		t.Fatalf("a model's call of a read-only tool: %v", res.Err)
	}
	res := exec.Invoke(ctx, core.Call{Name: "write", Origin: core.OriginModel})
	if res.Kind() != core.KindRejected || !errors.Is(res.Err, core.ErrNeedsApproval) {
		t.Fatalf("a model's call of a write: got %q %v, want rejected needing approval", res.Kind(), res.Err)
	}
	want := "needs approval: the model called write, which is not read-only; no approver is set"
	if res.Err.Error() != want {
		t.Errorf("message:\n got %q\nwant %q", res.Err, want)
	}
	if ran.Load() != 1 {
		t.Errorf("write ran %d times, want 1 (the person's)", ran.Load())
	}
	if res := exec.Invoke(ctx, core.Call{Name: "nope", Origin: core.OriginModel}); res.Kind() != core.KindUnknownTool {
		t.Errorf("a model's call of an unknown tool: got %q, want unknown_tool", res.Kind())
	}

	// A hook's allow lets the model's call run.
	must(t, exec.AddBefore(core.BeforeHook{Name: "ok-writes", Tools: []string{"write"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			return nil, core.Allow("writes are fine here")
		}}))
	if res := exec.Invoke(ctx, core.Call{Name: "write", Origin: core.OriginModel}); !res.OK() {
		t.Fatalf("allowed by a hook: %v", res.Err)
	}
}

// TestPermissions: allow-all runs what no hook decided (a hook's ask
// still asks); deny-unlisted denies whatever no hook allowed, a person's
// calls too.
func TestPermissions(t *testing.T) {
	var ran atomic.Int32
	exec := newExec(t, []core.Tool{writeTool(&ran), readTool()}, executor.WithPermissions(executor.PermissionsAllowAll))
	ctx := context.Background()
	if res := exec.Invoke(ctx, core.Call{Name: "write", Origin: core.OriginModel}); !res.OK() {
		t.Fatalf("allow-all, a model's write: %v", res.Err)
	}
	must(t, exec.AddBefore(core.BeforeHook{Name: "asks", Tools: []string{"read"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Ask("reads are watched") }}))
	if res := exec.Invoke(ctx, core.Call{Name: "read"}); !errors.Is(res.Err, core.ErrNeedsApproval) {
		t.Fatalf("allow-all does not silence a hook's ask: got %v", res.Err)
	}

	must(t, exec.SetPermissions(executor.PermissionsDenyUnlisted))
	res := exec.Invoke(ctx, core.Call{Name: "write"})
	if res.Kind() != core.KindRejected || ran.Load() != 1 {
		t.Fatalf("deny-unlisted, a person's write: got %v (ran %d)", res.Err, ran.Load())
	}
	if want := "rejected: no policy allowed write and permissions is deny-unlisted; allow it in a policy"; res.Err.Error() != want {
		t.Errorf("message:\n got %q\nwant %q", res.Err, want)
	}
	if e := res.Err.(*core.Error); e.Hook != "permissions" {
		t.Errorf("hook: got %q, want permissions", e.Hook)
	}
	must(t, exec.AddBefore(core.BeforeHook{Name: "listed", Tools: []string{"write"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Allow("listed") }}))
	if res := exec.Invoke(ctx, core.Call{Name: "write", Origin: core.OriginModel}); !res.OK() {
		t.Fatalf("deny-unlisted, a listed tool: %v", res.Err)
	}

	if err := exec.SetPermissions(executor.Permissions(7)); err == nil {
		t.Error("SetPermissions(7): no error")
	}
	for _, p := range []executor.Permissions{executor.PermissionsDefault, executor.PermissionsAllowAll, executor.PermissionsDenyUnlisted} {
		if got, err := executor.ParsePermissions(p.String()); err != nil || got != p {
			t.Errorf("ParsePermissions(%q): got %v, %v", p, got, err)
		}
	}
	if _, err := executor.ParsePermissions("yolo"); err == nil || !strings.Contains(err.Error(), `"yolo"`) {
		t.Errorf("ParsePermissions(yolo): got %v, want an error naming it", err)
	}
}

// TestApprover: what the approver sees and how each answer ends the call.
func TestApprover(t *testing.T) {
	ctx := context.Background()
	ask := core.BeforeHook{Name: "careful", Source: "policy.star:3", Tools: []string{"write"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"path":"src/x"}`), core.Ask("writes src/x")
		}}
	run := func(t *testing.T, ap core.ApproverFunc) (*core.Result, int32) {
		var ran atomic.Int32
		exec := newExec(t, []core.Tool{writeTool(&ran)}, executor.WithApprover(ap))
		must(t, exec.AddBefore(ask))
		return exec.Invoke(ctx, core.Call{Name: "write", Args: json.RawMessage(`{"path":"x"}`), Origin: core.OriginModel}), ran.Load()
	}

	t.Run("request", func(t *testing.T) {
		var got core.ApprovalRequest
		var args string
		res, ran := run(t, func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
			got, args = *req, string(req.Call.Args)
			return core.Approval{Verdict: core.VerdictAllow, Reason: "looks fine"}, nil
		})
		if !res.OK() || ran != 1 {
			t.Fatalf("approved: got %v, ran %d", res.Err, ran)
		}
		if got.Reason != "writes src/x" || got.Hook != "careful" || got.Source != "policy.star:3" || args != `{"path":"src/x"}` || got.Call.Origin != core.OriginModel {
			t.Errorf("request: got reason %q hook %q source %q args %s origin %s", got.Reason, got.Hook, got.Source, args, got.Call.Origin)
		}
		last := res.Decisions[len(res.Decisions)-1]
		if last.Hook != "approver" || last.Verdict != core.VerdictAllow || last.Reason != "looks fine" {
			t.Errorf("the approver's record: got %+v", last)
		}
	})
	t.Run("deny", func(t *testing.T) {
		res, ran := run(t, func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
			return core.Approval{Verdict: core.VerdictDeny, Reason: "use src/y instead"}, nil
		})
		if ran != 0 || res.Kind() != core.KindRejected || res.Err.Error() != "not approved: use src/y instead" {
			t.Fatalf("got %q (ran %d), want the reason for the model", res.Err, ran)
		}
	})
	t.Run("no verdict denies", func(t *testing.T) {
		res, ran := run(t, func(context.Context, *core.ApprovalRequest) (core.Approval, error) { return core.Approval{}, nil })
		if ran != 0 || res.Err.Error() != "not approved" {
			t.Fatalf("got %v (ran %d)", res.Err, ran)
		}
	})
	t.Run("error", func(t *testing.T) {
		res, ran := run(t, func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
			return core.Approval{Verdict: core.VerdictAllow}, errors.New("terminal gone")
		})
		if ran != 0 || res.Kind() != core.KindRejected || res.Err.Error() != "rejected: the approver failed: terminal gone" {
			t.Fatalf("got %v (ran %d)", res.Err, ran)
		}
	})
	t.Run("needs approval", func(t *testing.T) {
		res, ran := run(t, func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
			return core.Approval{}, fmt.Errorf("%w: %s; pass --approve always", core.ErrNeedsApproval, req.Reason)
		})
		if ran != 0 || !errors.Is(res.Err, core.ErrNeedsApproval) || res.Err.Error() != "needs approval: writes src/x; pass --approve always" {
			t.Fatalf("got %v (ran %d)", res.Err, ran)
		}
	})
	t.Run("panic", func(t *testing.T) {
		res, ran := run(t, func(context.Context, *core.ApprovalRequest) (core.Approval, error) { panic("approver bug") })
		if ran != 0 || res.Kind() != core.KindPanic {
			t.Fatalf("got %q %v (ran %d), want a panic result", res.Kind(), res.Err, ran)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		var ran atomic.Int32
		cctx, cancel := context.WithCancel(ctx)
		exec := newExec(t, []core.Tool{writeTool(&ran)}, executor.WithApprover(core.ApproverFunc(
			func(ctx context.Context, _ *core.ApprovalRequest) (core.Approval, error) {
				cancel()
				<-ctx.Done()
				return core.Approval{}, ctx.Err()
			})))
		must(t, exec.AddBefore(ask))
		res := exec.Invoke(cctx, core.Call{Name: "write", Origin: core.OriginModel})
		if res.Kind() != core.KindCanceled || ran.Load() != 0 {
			t.Fatalf("got %q (ran %d), want canceled", res.Kind(), ran.Load())
		}
	})
	t.Run("always", func(t *testing.T) {
		var ran, asked atomic.Int32
		exec := newExec(t, []core.Tool{writeTool(&ran)}, executor.WithApprover(core.ApproverFunc(
			func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
				asked.Add(1)
				return core.Approval{Verdict: core.VerdictAllow, Always: true}, nil
			})))
		for range 3 {
			if res := exec.Invoke(ctx, core.Call{Name: "write", Origin: core.OriginModel}); !res.OK() {
				t.Fatal(res.Err)
			}
		}
		if asked.Load() != 1 || ran.Load() != 3 {
			t.Fatalf("asked %d, ran %d; want 1 and 3", asked.Load(), ran.Load())
		}
		if got := exec.ApprovedTools(); len(got) != 1 || got[0] != "write" {
			t.Errorf("ApprovedTools: got %v", got)
		}
		rul := exec.Decide(ctx, core.Call{Name: "write", Origin: core.OriginModel})
		if rul.Outcome != core.VerdictAllow || rul.Hook != "session" {
			t.Errorf("Decide after always: got %s by %q, want allow by session", rul.Outcome, rul.Hook)
		}
	})
}

// TestOriginIsInherited: a call made inside a model's call is the
// model's; inside a person's, the person's; an explicit origin wins.
func TestOriginIsInherited(t *testing.T) {
	var exec *executor.Executor
	var mu sync.Mutex
	var seen []string
	outer := core.Tool{Name: "outer", ReadOnly: true, Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		res := exec.Invoke(ctx, core.Call{Name: "inner"})
		res2 := exec.Invoke(ctx, core.Call{Name: "inner", Origin: core.OriginPerson})
		return res.ForLLM + "," + res2.ForLLM, nil
	}}
	inner := core.Tool{Name: "inner", ReadOnly: true, Func: func(context.Context, json.RawMessage) (any, error) { return "in", nil }}
	exec = newExec(t, []core.Tool{outer, inner})
	must(t, exec.AddBefore(core.BeforeHook{Name: "watch", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		mu.Lock()
		seen = append(seen, c.Name+":"+c.Origin.String())
		mu.Unlock()
		return nil, nil
	}}))
	exec.Invoke(context.Background(), core.Call{Name: "outer", Origin: core.OriginModel})
	exec.Invoke(context.Background(), core.Call{Name: "outer"})
	want := "outer:model inner:model inner:person outer:person inner:person inner:person"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("origins:\n got %s\nwant %s", got, want)
	}
}

// TestDecideRunsNothing: Decide runs the before stages only, on a copy of
// the session; a call a hook makes while deciding runs no tool; and the
// ruling says why for each outcome.
func TestDecideRunsNothing(t *testing.T) {
	var ran, mw, after atomic.Int32
	var exec *executor.Executor
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	tool := writeTool(&ran)
	tool.Parameters = schema
	exec = newExec(t, []core.Tool{tool}, executor.WithValidateArguments(true))
	exec.Session().Set("count", int64(1))
	must(t, exec.AddBefore(core.BeforeHook{Name: "meddler", Source: "p.star:9", Func: func(ctx context.Context, c *core.Call) (json.RawMessage, error) {
		c.Session.Update("count", func(old any, _ bool) any { return old.(int64) + 1 })
		if c.Name == "write" && executor.Deciding(ctx) && string(c.Args) != `{"n":0}` {
			nested := exec.Invoke(ctx, core.Call{Name: "write", Args: json.RawMessage(`{"n":0}`)})
			if nested.OK() || !strings.Contains(nested.Err.Error(), "runs no tool") {
				return nil, fmt.Errorf("a nested call while deciding: got %v", nested.Err)
			}
		}
		var a struct{ N int }
		_ = json.Unmarshal(c.Args, &a)
		switch a.N {
		case 2:
			return nil, core.Ask("two needs a look")
		case 3:
			return nil, core.Deny("three is out")
		}
		return nil, nil
	}}))
	must(t, exec.Use(core.Middleware{Name: "mw", Func: func(ctx context.Context, c *core.Call, next core.Handler) *core.Result {
		mw.Add(1)
		return next(ctx, c)
	}}))
	must(t, exec.AddAfter(core.AfterHook{Name: "audit", Func: func(context.Context, *core.Call, *core.Result) error {
		after.Add(1)
		return nil
	}}))
	ctx := context.Background()
	for _, c := range []struct {
		args, name string
		origin     core.Origin
		want       core.Verdict
		kind       core.Kind
		hook, why  string
	}{
		{`{"n":1}`, "write", 0, core.VerdictAllow, "", "default", "a person's calls run"},
		{`{"n":1}`, "write", core.OriginModel, core.VerdictAsk, "", "default", "the model called write"},
		{`{"n":2}`, "write", 0, core.VerdictAsk, "", "meddler", "two needs a look"},
		{`{"n":3}`, "write", 0, core.VerdictDeny, core.KindRejected, "meddler", "three is out"},
		{`{"n":"x"}`, "write", 0, core.VerdictDeny, core.KindInvalidArguments, "schema", "/n"},
		{`[1]`, "write", 0, core.VerdictDeny, core.KindInvalidArguments, "", "must be a JSON object"},
		{`{}`, "nope", 0, core.VerdictDeny, core.KindUnknownTool, "", "nope"},
	} {
		rul := exec.Decide(ctx, core.Call{Name: c.name, Args: json.RawMessage(c.args), Origin: c.origin})
		if rul.Outcome != c.want || rul.Hook != c.hook || !strings.Contains(rul.Reason, c.why) || core.KindOf(rul.Err) != c.kind && c.kind != "" {
			t.Errorf("%s %s: got %s by %q: %q (%v); want %s by %q containing %q", c.name, c.args, rul.Outcome, rul.Hook, rul.Reason, rul.Err, c.want, c.hook, c.why)
		}
		if c.kind == "" && rul.Err != nil {
			t.Errorf("%s %s: Err %v, want none", c.name, c.args, rul.Err)
		}
	}
	if ran.Load() != 0 || mw.Load() != 0 || after.Load() != 0 {
		t.Errorf("while deciding: tool ran %d, middleware %d, after hooks %d; want none", ran.Load(), mw.Load(), after.Load())
	}
	if v, _ := exec.Session().Get("count"); v != int64(1) {
		t.Errorf("the session after deciding: count = %v, want 1 (hooks wrote to a copy)", v)
	}
	rul := exec.Decide(ctx, core.Call{Name: "write", Args: json.RawMessage(`{"n":3}`)})
	if rul.Source != "p.star:9" || len(rul.Decisions) != 1 || rul.Decisions[0].Source != "p.star:9" {
		t.Errorf("a deny's source: got %q, decisions %+v", rul.Source, rul.Decisions)
	}
	if res := exec.Invoke(ctx, core.Call{Name: "write", Args: json.RawMessage(`{"n":1}`)}); !res.OK() || ran.Load() != 1 {
		t.Fatalf("a real call after deciding: %v", res.Err)
	}
	if v, _ := exec.Session().Get("count"); v != int64(2) {
		t.Errorf("the session after a real call: count = %v, want 2", v)
	}
}

// TestDecideConcurrently: rulings from many goroutines do not mix.
func TestDecideConcurrently(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")})
	must(t, exec.AddBefore(core.BeforeHook{Name: "odd", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		var a struct{ N int }
		_ = json.Unmarshal(c.Args, &a)
		c.Session.Set("n", int64(a.N))
		if a.N%2 == 1 {
			return nil, core.Deny(fmt.Sprint(a.N))
		}
		return json.RawMessage(fmt.Sprintf(`{"n":%d,"seen":true}`, a.N)), nil
	}}))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rul := exec.Decide(context.Background(), core.Call{Name: "t", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
			if i%2 == 1 {
				if rul.Outcome != core.VerdictDeny || rul.Reason != fmt.Sprint(i) {
					t.Errorf("%d: got %s %q", i, rul.Outcome, rul.Reason)
				}
			} else if want := fmt.Sprintf(`{"n":%d,"seen":true}`, i); rul.Outcome != core.VerdictAllow || string(rul.Args) != want {
				t.Errorf("%d: got %s %s, want allow %s", i, rul.Outcome, rul.Args, want)
			}
		}()
	}
	wg.Wait()
	if _, ok := exec.Session().Get("n"); ok {
		t.Error("a ruling's state reached the session")
	}
}

// TestRecordsOfEveryEnding: the trail of a rejected, asked, rewritten,
// invalid and unknown call, with the after hooks' records, and the
// middleware seeing the before stages.
func TestRecordsOfEveryEnding(t *testing.T) {
	tool := okTool("t")
	tool.Parameters = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	exec := newExec(t, []core.Tool{tool}, executor.WithValidateArguments(true))
	must(t, exec.AddBefore(core.BeforeHook{Name: "policy", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		switch string(c.Args) {
		case `{"n":"deny"}`:
			return nil, core.Deny("denied")
		case `{"n":"ask"}`:
			return nil, core.Ask("asked")
		case `{"n":"fix"}`:
			return json.RawMessage(`{"n":1}`), nil
		}
		return nil, nil
	}}))
	var seenByMiddleware []string
	must(t, exec.Use(core.Middleware{Name: "mw", Func: func(ctx context.Context, c *core.Call, next core.Handler) *core.Result {
		seenByMiddleware = append(seenByMiddleware, trail(c.Decisions()))
		return next(ctx, c)
	}}))
	var seenByAfter []string
	must(t, exec.AddAfter(core.AfterHook{Name: "audit", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		seenByAfter = append(seenByAfter, trail(res.Decisions))
		return nil
	}}, core.AfterHook{Name: "broken", Func: func(context.Context, *core.Call, *core.Result) error { return errors.New("disk full") }}))

	for _, c := range []struct{ name, args, want string }{
		{"t", `{"n":"deny"}`, "global-before policy deny | after audit none | after broken none failed: disk full"},
		{"t", `{"n":"ask"}`, "global-before policy ask | approval policy ask | after audit none | after broken none failed: disk full"},
		{"t", `{"n":"fix"}`, "global-before policy none rewrote | approval default allow | validation schema none | after audit none | after broken none failed: disk full"},
		{"t", `{"n":"bad"}`, "global-before policy none | approval default allow | validation schema deny | after audit none | after broken none failed: disk full"},
		{"gone", `{}`, "global-before policy none | approval default allow | after audit none | after broken none failed: disk full"},
	} {
		res, _ := exec.InvokeTool(context.Background(), c.name, json.RawMessage(c.args))
		if got := trail(res.Decisions); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.name, c.args, got, c.want)
		}
	}
	// The audit hook saw the before stages; the middleware saw them
	// before validation.
	if got := seenByAfter[2]; got != "global-before policy none rewrote | approval default allow | validation schema none" {
		t.Errorf("the first after hook saw %s", got)
	}
	if got := strings.Join(seenByMiddleware, " ; "); got != "global-before policy none rewrote | approval default allow ; "+
		"global-before policy none | approval default allow ; global-before policy none | approval default allow" {
		t.Errorf("middleware saw %s", got)
	}
}

// trail writes decisions compactly: "stage hook verdict [rewrote] [reason
// of an after hook]".
func trail(ds []core.Decision) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s %s %s", d.Stage, d.Hook, d.Verdict)
		if d.Rewrote {
			parts[i] += " rewrote"
		}
		if d.Stage == core.StageAfter && d.Reason != "" {
			parts[i] += " " + d.Reason
		}
	}
	return strings.Join(parts, " | ")
}

// TestCallsShareNoTrail: a call a hook builds from the call it sees
// starts a trail of its own.
func TestCallsShareNoTrail(t *testing.T) {
	var exec *executor.Executor
	var inner *core.Result
	outer := core.Tool{Name: "outer", Func: func(context.Context, json.RawMessage) (any, error) { return "o", nil }}
	exec = newExec(t, []core.Tool{outer, okTool("t")})
	must(t, exec.AddBefore(core.BeforeHook{Name: "copy", Tools: []string{"outer"}, Func: func(ctx context.Context, c *core.Call) (json.RawMessage, error) {
		cp := *c
		cp.Name, cp.ID = "t", ""
		inner = exec.Invoke(ctx, cp)
		return nil, nil
	}}))
	res := exec.Invoke(context.Background(), core.Call{Name: "outer"})
	if got := trail(res.Decisions); got != "tool-before copy none | approval default allow" {
		t.Errorf("outer: %s", got)
	}
	if got := trail(inner.Decisions); got != "approval default allow" {
		t.Errorf("inner: %s", got)
	}
}

// TestObserve: a call that ran elsewhere reaches the after hooks only —
// no before hook, middleware or tool — and an after hook's failure is
// added to the result.
func TestObserve(t *testing.T) {
	var ran, before, mw atomic.Int32
	exec := newExec(t, []core.Tool{writeTool(&ran)})
	must(t, exec.AddBefore(core.BeforeHook{Name: "b", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		before.Add(1)
		return nil, core.Deny("never asked")
	}}))
	must(t, exec.Use(core.Middleware{Name: "m", Func: func(ctx context.Context, c *core.Call, next core.Handler) *core.Result {
		mw.Add(1)
		return next(ctx, c)
	}}))
	var seen []string
	must(t, exec.AddAfter(core.AfterHook{Name: "audit", Func: func(_ context.Context, c *core.Call, res *core.Result) error {
		seen = append(seen, fmt.Sprintf("%s %s %s %s", c.Name, c.Origin, c.Args, res.ForLLM))
		return nil
	}}, core.AfterHook{Name: "strict", Tools: []string{"write"}, Func: func(context.Context, *core.Call, *core.Result) error {
		return errors.New("disk full")
	}}))
	res := exec.Observe(context.Background(), core.Call{Name: "write", Args: json.RawMessage(`{"path":"x"}`), Origin: core.OriginModel},
		&core.Result{ForLLM: "wrote x"})
	if ran.Load()+before.Load()+mw.Load() != 0 {
		t.Errorf("tool %d, before hooks %d, middleware %d ran; want none", ran.Load(), before.Load(), mw.Load())
	}
	if want := `write model {"path":"x"} wrote x`; len(seen) != 1 || seen[0] != want {
		t.Errorf("the audit hook saw %q, want %q", seen, want)
	}
	if res.Kind() != core.KindFailed || !strings.Contains(res.Err.Error(), "disk full") || res.ForLLM != "wrote x" {
		t.Errorf("result: %q %v %q", res.Kind(), res.Err, res.ForLLM)
	}
	if got := trail(res.Decisions); got != "after audit none | after strict none failed: disk full" {
		t.Errorf("decisions: %s", got)
	}
	if res := exec.Observe(context.Background(), core.Call{Name: "gone"}, nil); res == nil || res.Tool != "gone" || !res.OK() {
		t.Errorf("a nil result: %+v", res)
	}
}

// TestFailedHooks: a deny is recorded as the hook's failure when the hook
// was marked failed (core.HookFailure, as script hooks that raise are),
// panicked, ran out of time or rewrote badly; a Go hook's own error and a
// deny verdict are verdicts.
func TestFailedHooks(t *testing.T) {
	// Each hook gets stop, which ends the call's context, as a deadline
	// would while the hook runs.
	for _, c := range []struct {
		name   string
		fn     func(stop func()) core.BeforeFunc
		failed bool
		reason string
	}{
		{"deny", func(func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("no") }
		}, false, "no"},
		{"go error", func(func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) { return nil, errors.New("not today") }
		}, false, "not today"},
		{"marked", func(func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) {
				return nil, core.HookFailed(errors.New("policy.star:3:7: undefined: comand"))
			}
		}, true, "policy.star:3:7: undefined: comand"},
		{"panic", func(func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) { panic("boom") }
		}, true, "boom"},
		{"bad rewrite", func(func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) { return json.RawMessage(`[1]`), nil }
		}, true, "rewrote the arguments badly"},
		{"out of time", func(stop func()) core.BeforeFunc {
			return func(ctx context.Context, _ *core.Call) (json.RawMessage, error) { stop(); return nil, ctx.Err() }
		}, true, "canceled"},
		{"deny as time runs out", func(stop func()) core.BeforeFunc {
			return func(context.Context, *core.Call) (json.RawMessage, error) { stop(); return nil, core.Deny("too late") }
		}, false, "too late"},
	} {
		var stop func()
		exec := newExec(t, []core.Tool{okTool("t")})
		must(t, exec.AddBefore(core.BeforeHook{Name: "policy", Func: c.fn(func() { stop() })}))
		for _, how := range []string{"invoked", "decided"} {
			ctx, cancel := context.WithCancel(context.Background())
			stop = cancel
			var ds []core.Decision
			if how == "invoked" {
				res, _ := exec.InvokeTool(ctx, "t", nil)
				ds = res.Decisions
			} else {
				ds = exec.Decide(ctx, core.Call{Name: "t"}).Decisions
			}
			cancel()
			if len(ds) == 0 || ds[0].Hook != "policy" || ds[0].Verdict != core.VerdictDeny ||
				ds[0].Failed != c.failed || !strings.Contains(ds[0].Reason, c.reason) {
				t.Errorf("%s, %s: %+v, want the deny of policy, failed %v, with a reason containing %q", c.name, how, ds, c.failed, c.reason)
			}
		}
	}
}
