package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/core"
)

// TaskToolName is the name of the tool that runs a subagent.
const TaskToolName = "task"

// taskParams is the task tool's parameter schema.
const taskParams = `{"type":"object","properties":{` +
	`"prompt":{"type":"string","minLength":1,"description":"The whole task: the subagent sees nothing of this conversation."},` +
	`"tools":{"type":"array","items":{"type":"string"},"description":"The tools the subagent may use, a subset of yours; all of them when left out."},` +
	`"max_turns":{"type":"integer","minimum":1,"description":"Bounds the subagent's model turns."}},` +
	`"required":["prompt"],"additionalProperties":false}`

// TaskTool returns the task tool for a: {prompt, tools?, max_turns?} runs
// prompt in a subagent (see Spawn) and gives the model the subagent's
// final answer, and the person a line saying how it ended. Called from a
// subagent's run, it spawns a child of that subagent, so nested tasks
// count toward the depth limit. Register it with a.RegisterTools.
//
// The tool is read-only: starting a subagent changes nothing by itself,
// and every call the subagent makes goes through the same pipeline with
// the model's defaults, its own policies and its own approvals, so a tool
// that is not read-only still asks there, with the subagent named. Asking
// before the task too would ask twice for the same effect, and a
// headless run (--approve never) could never delegate. The work a
// subagent may do is bounded by its tools, SubagentLimits and the budgets.
func (a *Agent) TaskTool() core.Tool {
	return core.Tool{
		Name: TaskToolName,
		Description: "Runs a subagent: a new conversation with the same model and the same policies, on your tools " +
			"or a subset of them, that works on prompt alone and returns its final answer. " +
			"Use it for a self-contained piece of work.",
		Parameters: json.RawMessage(taskParams),
		ReadOnly:   true,
		Func:       a.runTask,
	}
}

func (a *Agent) runTask(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		Prompt   string   `json:"prompt"`
		Tools    []string `json:"tools"`
		MaxTurns int      `json:"max_turns"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("task: %v", err)
	}
	if in.Prompt == "" {
		return nil, fmt.Errorf("task: prompt is empty; say what the subagent should do")
	}
	if in.MaxTurns < 0 {
		return nil, fmt.Errorf("task: max_turns got %d, want 1 or more", in.MaxTurns)
	}
	reply, err := a.Spawn(ctx, in.Prompt, SubagentOptions{Tools: in.Tools, MaxTurns: in.MaxTurns})
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	forUser := fmt.Sprintf("subagent %s: %s after %d turns, %d tool calls", reply.AgentID, reply.Stop, reply.Turns, reply.ToolCalls)
	if n := len(reply.Denials); n > 0 {
		forUser += fmt.Sprintf(", %d denied", n)
	}
	text := reply.Text
	if reply.Stop != StopFinal {
		text = fmt.Sprintf("the subagent stopped (%s) before it finished; what it said last: %s", reply.Stop, reply.Text)
	}
	return core.DualToolOutput{ForLLM: text, ForUser: forUser}, nil
}
