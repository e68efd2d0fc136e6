package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/stdlib"
)

// Decisions as scripts see them: the records of a result (r.decisions),
// the ruling of decide(...) and the assertions of script tests on it.

// DecisionFields are the keys of a decision record as scripts and --json
// output see it: the same in every language, without durations, so that
// transcripts stay deterministic.
var DecisionFields = []string{"stage", "hook", "source", "verdict", "reason", "skipped", "failed", "rewrote", "args_before", "args_after", "sandbox"}

// DecisionsValue is a decision trail as a list of dicts with the keys of
// DecisionFields; args_before and args_after are the decoded objects of a
// rewrite, None otherwise.
func DecisionsValue(ds []core.Decision) []any {
	out := make([]any, len(ds))
	for i, d := range ds {
		out[i] = decisionValue(d)
	}
	return out
}

func decisionValue(d core.Decision) map[string]any {
	return map[string]any{
		"stage": string(d.Stage), "hook": d.Hook, "source": d.Source, "verdict": d.Verdict.String(),
		"reason": d.Reason, "skipped": d.Skipped, "failed": d.Failed, "rewrote": d.Rewrote,
		"args_before": argsValue(d.ArgsBefore), "args_after": argsValue(d.ArgsAfter),
		"sandbox": sandboxValue(d.Sandbox),
	}
}

// sandboxValue is a profile, or None when unset.
func sandboxValue(s core.Sandbox) any {
	if s == core.SandboxUnset {
		return nil
	}
	return string(s)
}

// argsValue decodes recorded arguments; ones that have no script form
// (too deep) show as their text.
func argsValue(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	return v
}

// Outcomes of decide(...), as scripts see them: the names of the verdicts
// of before hooks, so that a ruling and a hook speak alike.
const (
	OutcomeAllow = "allow" // the call would run
	OutcomeAsk   = "ask"   // the call would ask the approver
	OutcomeDeny  = "deny"  // the call would not run
)

// Ruling is what decide(name, args) returns: executor.Ruling as scripts
// see it. It is true when the call would run.
type Ruling struct{ R *executor.Ruling }

var (
	_ Object  = (*Ruling)(nil)
	_ Truther = (*Ruling)(nil)
)

func (r *Ruling) TypeName() string { return "ruling" }
func (r *Ruling) AttrNames() []string {
	return []string{"args", "decisions", "effects", "error_kind", "hook", "origin", "outcome", "reason", "source", "tool", "workdir"}
}

// Attr returns tool, origin (person, model, mcp or hook), outcome (allow,
// ask or deny), reason, hook and source (who decided), args (the final
// canonical arguments, decoded), workdir and effects (as a call's),
// decisions (as r.decisions) and error_kind (of a call that would fail:
// rejected, invalid_arguments or unknown_tool; None otherwise).
func (r *Ruling) Attr(name string) (any, bool, error) {
	switch name {
	case "workdir":
		return r.R.WorkDir, true, nil
	case "effects":
		return EffectsValue(r.R.Effects), true, nil
	case "tool":
		return r.R.Tool, true, nil
	case "origin":
		return r.R.Origin.String(), true, nil
	case "outcome":
		return r.R.Outcome.String(), true, nil
	case "reason":
		return r.R.Reason, true, nil
	case "hook":
		return r.R.Hook, true, nil
	case "source":
		return r.R.Source, true, nil
	case "args":
		return argsValue(r.R.Args), true, nil
	case "decisions":
		return DecisionsValue(r.R.Decisions), true, nil
	case "error_kind":
		if r.R.Err == nil {
			return nil, true, nil
		}
		return string(core.KindOf(r.R.Err)), true, nil
	}
	return nil, false, nil
}

// Truth is whether the call would run: `if decide(...):`.
func (r *Ruling) Truth() bool { return r.R.Outcome == core.VerdictAllow }

// String renders the ruling for transcripts: ruling(outcome="deny",
// hook="no_rm", reason="...").
func (r *Ruling) String() string {
	return fmt.Sprintf("ruling(outcome=%s, hook=%s, reason=%s)", quoteString(r.R.Outcome.String()), quoteString(r.R.Hook), quoteString(r.R.Reason))
}

// Explain says who decided and why, for messages: "deny by no_rm at
// policy.star:3: recursive delete", or "deny by no_rm at policy.star:3,
// which failed: ..." when the hook's failure denied.
func (r *Ruling) Explain() string {
	var b strings.Builder
	b.WriteString(r.R.Outcome.String())
	if r.R.Hook != "" {
		b.WriteString(" by " + r.R.Hook)
	}
	if r.R.Source != "" {
		b.WriteString(" at " + r.R.Source)
	}
	if _, failed := r.failure(); failed {
		b.WriteString(", which failed")
	}
	if r.R.Reason != "" {
		b.WriteString(": " + r.R.Reason)
	}
	return b.String()
}

// failure returns the record of the hook whose failure denied the call,
// if a failure did.
func (r *Ruling) failure() (core.Decision, bool) {
	if r.R.Outcome != core.VerdictDeny {
		return core.Decision{}, false
	}
	for _, d := range r.R.Decisions {
		if d.Failed {
			return d, true
		}
	}
	return core.Decision{}, false
}

// Decide evaluates a call as executor.Decide does, without running it:
// args is a JSON shape or raw JSON text, origin "person", "model", "mcp"
// or "hook".
func (h *Host) Decide(ctx context.Context, name string, args any, origin string) (*Ruling, error) {
	o, err := core.ParseOrigin(origin)
	if err != nil {
		return nil, err
	}
	raw, err := rawArgs(args, "args")
	if err != nil {
		return nil, err
	}
	return &Ruling{R: h.exec.Decide(ctx, core.Call{Name: name, Args: raw, Origin: o})}, nil
}

// decideParams are the parameters of decide and of the assertions on
// rulings (with reason and msg).
var decideParams = []Param{{Name: "name", Kind: String}, {Name: "args", Kind: CallArgs, Optional: true},
	{Name: "origin", Kind: String, Optional: true, Default: "person"}}

func (h *Host) apiDecide(ctx context.Context, a Args) (any, error) {
	r, err := h.Decide(ctx, a["name"].(string), a["args"], a["origin"].(string))
	if err != nil {
		return nil, fmt.Errorf("decide: %w", err)
	}
	return r, nil
}

// rulingAssertion is assert.allowed, assert.asks or assert.denied: decide
// the call, and fail unless the outcome is want and, when reason is
// given, the reason contains it. A deny that is a hook's failure (see
// core.Decision.Failed) fails assert.denied too, unless it says
// hook_error = True, which wants exactly such a deny; extra are the
// parameters an assertion has besides decide's, reason and msg.
func (h *Host) rulingAssertion(name, want, doc string, extra ...Param) Builtin {
	fn := "assert." + name
	params := append(append([]Param{}, decideParams...), Param{Name: "reason", Kind: String, Optional: true, Default: ""})
	params = append(append(params, extra...), Param{Name: "msg", Kind: Operand, Optional: true})
	return Builtin{Name: name, Doc: doc, Params: params, CallsScripts: true,
		Fn: func(ctx context.Context, a Args) (any, error) {
			r, err := h.Decide(ctx, a["name"].(string), a["args"], a["origin"].(string))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fn, err)
			}
			call := a["name"].(string)
			if raw := r.R.Args; len(raw) > 0 {
				call += " " + string(raw)
			}
			got := r.R.Outcome.String()
			if got != want {
				return nil, stdlib.FailAssertion(fn, message(a), "%s as a %s's call: got %s, want %s", call, r.R.Origin, r.Explain(), want)
			}
			failed, hookFailed := r.failure()
			expected, _ := a["hook_error"].(bool)
			switch {
			case hookFailed && !expected:
				where := failed.Hook
				if failed.Source != "" {
					where += " at " + failed.Source
				}
				return nil, stdlib.FailAssertion(fn, message(a), "%s as a %s's call: denied because the hook %s failed, not by its verdict: %s; "+
					"fix the hook, or if the test expects it to fail, say %s(..., hook_error = True)", call, r.R.Origin, where, failed.Reason, fn)
			case expected && !hookFailed:
				return nil, stdlib.FailAssertion(fn, message(a), "%s as a %s's call: got %s, want a deny from a hook that fails (hook_error = True)", call, r.R.Origin, r.Explain())
			}
			if sub := a["reason"].(string); sub != "" && !strings.Contains(r.R.Reason, sub) {
				return nil, stdlib.FailAssertion(fn, message(a), "%s as a %s's call: got %s, want a reason containing %q", call, r.R.Origin, r.Explain(), sub)
			}
			return r, nil
		}}
}
