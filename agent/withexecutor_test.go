package agent

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// With WithExecutor, the options that configure an executor apply to the
// given one; none is dropped.
func TestWithExecutorAppliesExecutorOptions(t *testing.T) {
	ex := executor.New(core.NewRegistry())
	ap := core.ApproverFunc(func(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{}, nil
	})
	if ex.ValidateArguments() || ex.Permissions() != executor.PermissionsDefault || ex.Approver() != nil {
		t.Fatal("a new executor is not at its defaults")
	}
	a, err := New(WithExecutor(ex), WithValidateArguments(true),
		WithPermissions(executor.PermissionsAllowAll), WithApprover(ap))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Executor() != ex {
		t.Fatal("the agent does not run its tools through the given executor")
	}
	if !ex.ValidateArguments() {
		t.Error("WithValidateArguments(true) was dropped")
	}
	if got := ex.Permissions(); got != executor.PermissionsAllowAll {
		t.Errorf("permissions %v, want allow-all: WithPermissions was dropped", got)
	}
	if ex.Approver() == nil {
		t.Error("WithApprover was dropped")
	}
}
