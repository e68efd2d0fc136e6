package telemetry

import "go.opentelemetry.io/otel/attribute"

// Operation names (gen_ai.operation.name), which also start span names.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// The GenAI semantic conventions' attributes agentsh sets.
const (
	OperationName      = attribute.Key("gen_ai.operation.name")
	ProviderName       = attribute.Key("gen_ai.provider.name")
	AgentName          = attribute.Key("gen_ai.agent.name")
	RequestModel       = attribute.Key("gen_ai.request.model")
	UsageInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	UsageOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	UsageCacheRead     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	UsageCacheCreation = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	FinishReasons      = attribute.Key("gen_ai.response.finish_reasons")
	ToolName           = attribute.Key("gen_ai.tool.name")
	ToolCallID         = attribute.Key("gen_ai.tool.call.id")
	ToolType           = attribute.Key("gen_ai.tool.type")
	// ToolCallArguments and ToolCallResult are set only with content
	// capture on.
	ToolCallArguments = attribute.Key("gen_ai.tool.call.arguments")
	ToolCallResult    = attribute.Key("gen_ai.tool.call.result")
	// ErrorType is the kind of error a call failed with (core.Kind).
	ErrorType = attribute.Key("error.type")
)

// agentsh's own attributes.
const (
	// ParentAgent names the agent that started a subagent.
	ParentAgent = attribute.Key("agentsh.agent.parent")
	// Turn numbers an agent's model requests from 1.
	Turn = attribute.Key("agentsh.turn")
	// CallOrigin is who made a call: person, model, mcp or hook.
	CallOrigin = attribute.Key("agentsh.call.origin")
	// DecisionVerdict is the pipeline's verdict on a call: allow (it
	// ran), deny (it did not) or ask (decided only, waiting on an
	// approval); DecisionHook, DecisionSource (file:line) and
	// DecisionReason say who settled it and why (core.Settled).
	DecisionVerdict = attribute.Key("agentsh.decision.verdict")
	DecisionHook    = attribute.Key("agentsh.decision.hook")
	DecisionSource  = attribute.Key("agentsh.decision.source")
	DecisionReason  = attribute.Key("agentsh.decision.reason")
	// Sandbox is the profile a sandboxed tool ran the call's commands in.
	Sandbox = attribute.Key("agentsh.sandbox")
	// Outcome is "ok", or the kind of error the call failed with.
	Outcome = attribute.Key("agentsh.outcome")
	// ApprovalVerdict and ApprovalReason are an approval event's answer.
	ApprovalVerdict = attribute.Key("agentsh.approval.verdict")
	ApprovalReason  = attribute.Key("agentsh.approval.reason")
	// Command names the agentsh command of a process's root span.
	Command = attribute.Key("agentsh.command")
	// Script is the script the command runs: its path as given,
	// <command-line> for -c, <stdin> for piped stdin.
	Script = attribute.Key("agentsh.script")
	// RunID is the durable run a root span is an execution of.
	RunID = attribute.Key("agentsh.run.id")
	// HookEvent is the other agent's name of the event agentsh hook
	// decided (PreToolUse, BeforeTool, ...).
	HookEvent = attribute.Key("agentsh.hook.event")
	// ExitCode is the command's exit code (the semantic conventions'
	// process.exit.code).
	ExitCode = attribute.Key("process.exit.code")
)

// EventApproval is the name of the event an approval adds to its call's
// span.
const EventApproval = "agentsh.approval"
