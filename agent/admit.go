package agent

import (
	"context"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// executeAll runs one turn's calls. The agent first refuses, itself, the
// calls it must not make: a subagent's call of a tool outside its subset
// (hook "subagent"), then a call a budget does not admit (hook "budget"),
// so a call the subset refuses spends nothing. A refused call does not
// run; its rejected result, with a decision record, goes to the after
// hooks (executor.Observe) like any refused call, so an audit misses
// nothing. The other calls run as one batch, and the results come back in
// call order.
func (a *Agent) executeAll(ctx context.Context, calls []core.Call, opts []executor.BatchOption) []*core.Result {
	var results []*core.Result // nil while no call is refused
	for i, c := range calls {
		res := a.refusal(ctx, c)
		if res == nil {
			continue
		}
		if results == nil {
			results = make([]*core.Result, len(calls))
		}
		results[i] = a.exec.Observe(ctx, c, res)
	}
	if results == nil {
		return a.exec.ExecuteAll(ctx, calls, opts...)
	}
	run := make([]core.Call, 0, len(calls))
	at := make([]int, 0, len(calls))
	for i, c := range calls {
		if results[i] == nil {
			run = append(run, c)
			at = append(at, i)
		}
	}
	if len(run) > 0 {
		for j, res := range a.exec.ExecuteAll(ctx, run, opts...) {
			results[at[j]] = res
		}
	}
	return results
}

// refusal is the result of a call the agent refuses, or nil.
func (a *Agent) refusal(ctx context.Context, c core.Call) *core.Result {
	if !a.mayUse(c.Name) {
		return a.subsetRefusal(c)
	}
	if err := a.budget.admitToolCall(ctx, c.Name); err != nil {
		return budgetRefusal(c, err)
	}
	return nil
}
