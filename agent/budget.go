package agent

import (
	"context"
	"errors"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// ErrBudget is the error of a step refused because a budget would be
// exceeded; a Run ends with StopBudget.
var ErrBudget = errors.New("budget exhausted")

// admitRequest checks the budgets before a model request.
func (a *Agent) admitRequest(ctx context.Context, turn int) error { return nil }

// charge counts a response's usage in the reply (and the budgets).
func (a *Agent) charge(resp *provider.Response, reply *Reply) {
	reply.Usage = reply.Usage.Add(resp.Usage)
}

// isBudgetRefusal reports whether a rejected call was refused by a budget.
func isBudgetRefusal(res *core.Result) bool { return false }
