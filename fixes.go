package agentsh

import (
	"errors"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/mcp"
	"github.com/agentsh/agentsh/tools/mcp/serve"
	"github.com/agentsh/agentsh/tools/process"
)

// The packages say what fixes an error in their own terms (a script name
// such as provider("...") or config(budget = ...)); FixedBy names the
// setting of this package that fixes it, so that a program (the agentsh
// command) can add its own words for that setting.

// fix is one row of the table: the errors match finds are fixed by the
// setting of field.
type fix struct {
	match func(err error) bool
	field func(err error) string
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func as[T error](err error) bool { var t T; return errors.As(err, &t) }

func field(name string) func(error) string { return func(error) string { return name } }

var fixes = []fix{
	{is(agent.ErrNoProvider), field("Model")},
	{is(script.ErrNoModel), field("Model")},
	{is(provider.ErrUnknownModel), field("Model")},
	{is(provider.ErrTimeout), field("ModelTimeout")},
	{is(provider.ErrDiverged), field("RecordFile")},
	{is(provider.ErrRecording), field("RecordFile")},
	{is(session.ErrLocked), field("SessionStart.Name")},
	{is(session.ErrUnusable), field("SessionStart.Name")},
	{is(session.ErrExists), field("SessionStart.ResumeID")},
	{as[*script.StepBudgetError], field("MaxSteps")},
	{is(tools.ErrNoSandbox), field("Sandbox")},
	{is(process.ErrInsideSandbox), field("Sandbox")},
	{is(process.ErrNoSandbox), field("Sandbox")},
	{is(mcp.ErrPinsFile), field("PinsFile")},
	{is(serve.ErrNotLoopback), field("ServeOptions.Token")},
	{is(hookadapter.ErrNoHome), field("HookInstall.User")},
	{is(hookadapter.ErrTemporaryExe), field("HookInstall.Exe")},
	{as[*agent.CostUnknownError], field("PricesFile")},
	{as[*agent.Exhaustion], func(err error) string {
		var e *agent.Exhaustion
		errors.As(err, &e)
		switch e.Budget {
		case "tool_calls", "tokens", "cost", "wall":
			return "Budget." + e.Budget
		}
		return "" // a single tool's budget: no setting raises it
	}},
}

// FixedBy names the setting that fixes err: a field of Config ("Model",
// "ModelTimeout", "RecordFile", "MaxSteps", "Sandbox", "PinsFile",
// "PricesFile", "Budget.tool_calls", ...), of SessionStart, ServeOptions
// or HookInstall ("SessionStart.Name", "ServeOptions.Token",
// "HookInstall.Exe"); "" when no setting does.
func FixedBy(err error) string {
	if err == nil {
		return ""
	}
	for _, f := range fixes {
		if f.match(err) {
			return f.field(err)
		}
	}
	return ""
}
