package starlark

import (
	"errors"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// A run that uses up its step budget fails with a *script.StepBudgetError
// that says the budget, and names no flag of any program.
func TestStepBudgetError(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 10000})
	err := e.runErr("while True: pass")
	var sb *script.StepBudgetError
	if !errors.As(err, &sb) || sb.Max != 10000 || sb.Error() != "step budget of 10000 exceeded" {
		t.Fatalf("error %v (%T), want a StepBudgetError of 10000", err, err)
	}
}
