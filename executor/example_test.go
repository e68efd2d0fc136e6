package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// myPolicy is a core.BeforeFunc: an error rejects the call, non-nil args
// rewrite it, (nil, nil) lets it pass unchanged.
func myPolicy(ctx context.Context, call *core.Call) (json.RawMessage, error) {
	if strings.Contains(string(call.Args), "Mallory") {
		return nil, errors.New("Mallory is not welcome")
	}
	return nil, nil
}

// The README's embedding example: a tool, a policy and a timeout on one
// executor.
func Example() {
	ctx := context.Background()
	reg := core.NewRegistry()
	reg.RegisterTools(core.Tool{
		Name:       "greet",
		Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ Name string }
			json.Unmarshal(args, &a)
			return core.DualToolOutput{ForLLM: "hi " + a.Name, ForUser: "Hello there, " + a.Name + "!"}, nil
		},
	})
	ex := executor.New(reg, executor.WithValidateArguments(true),
		executor.WithExecutionMode(executor.ModeMixed))
	ex.AddBefore(core.BeforeHook{Name: "audit", Func: myPolicy})
	ex.Use(executor.Timeout(2 * time.Second))

	res, err := ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
	fmt.Println(res.ForLLM, "|", res.Display(), err)
	res, err = ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"Mallory"}`))
	fmt.Println(res.Kind(), err)
	// Output:
	// hi Ada | Hello there, Ada! <nil>
	// rejected rejected by "audit": Mallory is not welcome
}
