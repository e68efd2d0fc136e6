package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/internal/termsafe"
)

// Budgets from the command line: --max-tool-calls, --max-tokens,
// --max-cost and --max-wall set the limits of each host's budget (scripts
// change them with config(budget = ...)); --prices FILE is merged over
// the built-in price table. At the REPL's terminal an exhausted budget
// asks whether to extend it; elsewhere the run stops (exit code 4).

// askBudget makes an exhausted budget of the REPL's agent ask the person
// whether to extend it, at the approver's prompt (one prompt at a time).
func (s *replSession) askBudget(pa *promptApprover) {
	b := s.a.sh.Agent().Agent().Budget()
	b.SetOnExhausted(func(ctx context.Context, e *agent.Exhaustion) bool {
		return extendAtPrompt(ctx, &pa.mu, pa.ask, pa.out, e)
	})
}

// extendAtPrompt asks "budget exhausted: ...; extend by N? [y/N]". Only
// y or yes extends; Ctrl-C, the end of input or anything else stops.
func extendAtPrompt(ctx context.Context, mu *sync.Mutex, ask func(string) (string, error), out io.Writer, e *agent.Exhaustion) bool {
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	flushTerminal(out)
	line, err := ask(termsafe.String(extendPrompt(e))) // liner writes the prompt itself
	if err != nil {
		if errors.Is(err, errAborted) {
			io.WriteString(out, "not extended (Ctrl-C)\n")
		}
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// extendPrompt is the question of an exhausted budget.
func extendPrompt(e *agent.Exhaustion) string {
	spent := fmt.Sprintf("%s of %s", e.Counted(e.Spent), e.Amount(e.Limit))
	switch e.Budget {
	case "cost":
		spent = fmt.Sprintf("%s of %s spent", e.Amount(e.Spent), e.Amount(e.Limit))
	case "wall":
		spent = fmt.Sprintf("%s of %s wall time used", e.Amount(e.Spent), e.Amount(e.Limit))
	}
	return fmt.Sprintf("budget exhausted: %s; extend by %s? [y/N] ", spent, e.Amount(e.Extend))
}
