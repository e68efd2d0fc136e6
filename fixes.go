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
// setting of this package that fixes it, by the name an *OptionError
// uses, so that a program (the agentsh command) adds its own words for
// each setting in one place.

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
	{is(agent.ErrNoProvider), field("WithModel")},
	{is(script.ErrNoModel), field("WithModel")},
	{is(provider.ErrUnknownModel), field("WithModel")},
	{is(provider.ErrTimeout), field("WithModelTimeout")},
	{is(provider.ErrDiverged), field("WithRecordFile")},
	{is(provider.ErrRecording), field("WithRecordFile")},
	{is(session.ErrLocked), field("SessionStart.Name")},
	{is(session.ErrUnusable), field("SessionStart.Name")},
	{is(session.ErrExists), field("SessionStart.ResumeID")},
	{as[*script.StepBudgetError], field("WithMaxSteps")},
	{is(tools.ErrNoSandbox), field("WithSandbox")},
	{is(process.ErrInsideSandbox), field("WithSandbox")},
	{is(process.ErrNoSandbox), field("WithSandbox")},
	{is(mcp.ErrPinsFile), field("WithPinsFile")},
	{is(serve.ErrNotLoopback), field("ServeOptions.Token")},
	{is(hookadapter.ErrNoHome), field("HookInstall.User")},
	{is(hookadapter.ErrTemporaryExe), field("HookInstall.Exe")},
	{as[*agent.CostUnknownError], field("WithPricesFile")},
	{as[*agent.Exhaustion], func(err error) string {
		var e *agent.Exhaustion
		errors.As(err, &e)
		if l, ok := budgetLimits[e.Budget]; ok {
			return "WithBudget." + l
		}
		return "" // a single tool's budget: no setting raises it
	}},
}

// budgetLimits names the agent.Limits field of each budget.
var budgetLimits = map[string]string{"tool_calls": "ToolCalls", "tokens": "Tokens", "cost": "Cost", "wall": "Wall"}

// FixedBy names the setting that fixes err, as an *OptionError names
// one: an option ("WithModel", "WithModelTimeout", "WithRecordFile",
// "WithMaxSteps", "WithSandbox", "WithPinsFile", "WithPricesFile",
// "WithBudget.ToolCalls", ...) or a field of SessionStart, ServeOptions or
// HookInstall ("SessionStart.Name", "ServeOptions.Token",
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
