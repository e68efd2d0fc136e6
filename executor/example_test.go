package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// greetTool is the tool the examples below register: it greets args.name.
func greetTool() core.Tool {
	return core.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},
			"required":["name"]}`),
		ConcurrencySafe: core.Bool(true),
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ Name string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return "Hello, " + a.Name + "!", nil
		},
	}
}

// A Go tool is registered with the registry and called through the
// executor, never through Tool.Func: then every hook and middleware applies.
// A call that fails returns its Result too, with the error's kind.
func ExampleExecutor_InvokeTool() {
	ctx := context.Background()
	reg := core.NewRegistry()
	if err := reg.RegisterTools(greetTool()); err != nil {
		fmt.Println(err)
		return
	}
	ex := executor.New(reg, executor.WithValidateArguments(true))
	defer ex.Close()

	res, err := ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
	fmt.Println(res.ForLLM, err)

	res, err = ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":42}`))
	fmt.Println(res.Kind(), errors.Is(err, core.ErrInvalidArguments))
	fmt.Println(err)

	_, err = ex.InvokeTool(ctx, "greeet", nil)
	fmt.Println(err)
	// Output:
	// Hello, Ada! <nil>
	// invalid_arguments true
	// invalid arguments for greet: /name: expected string, but got number
	// unknown tool "greeet"; did you mean "greet"?
}

// A before hook guards calls: an error (or core.Deny) rejects the call, so
// no middleware and no tool runs; new arguments rewrite it; (nil, nil) has
// no opinion. The result keeps the trail of decisions.
func ExampleExecutor_AddBefore() {
	ctx := context.Background()
	reg := core.NewRegistry()
	reg.RegisterTools(greetTool())
	ex := executor.New(reg)
	defer ex.Close()

	ex.AddBefore(core.BeforeHook{
		Name:  "no_mallory",
		Tools: []string{"greet"}, // nil: every tool
		Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			var a struct{ Name string }
			json.Unmarshal(call.Args, &a)
			switch a.Name {
			case "Mallory":
				return nil, core.Deny("Mallory is not welcome")
			case "ada":
				return json.RawMessage(`{"name":"Ada"}`), nil // rewrite
			}
			return nil, nil
		},
	})

	res, err := ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"Mallory"}`))
	fmt.Println(res.Kind(), errors.Is(err, core.ErrRejected), err)
	for _, d := range res.Decisions {
		fmt.Println(" ", d.Stage, d.Hook, d.Verdict, d.Reason)
	}

	res, _ = ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"ada"}`))
	fmt.Println(res.ForLLM)
	// Output:
	// rejected true rejected by "no_mallory": Mallory is not welcome
	//   tool-before no_mallory deny Mallory is not welcome
	// Hello, Ada!
}

// Middleware wraps the innermost step (tool lookup, validation, the tool):
// it may change the call, the result, or not call next at all. The first
// registered is the outermost. Timeout and Retry are middleware too.
func ExampleExecutor_Use() {
	ctx := context.Background()
	reg := core.NewRegistry()
	reg.RegisterTools(greetTool())
	ex := executor.New(reg)
	defer ex.Close()

	shout := core.Middleware{
		Name: "shout",
		Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			res := next(ctx, call)
			if res.OK() {
				res.ForLLM = strings.ToUpper(res.ForLLM)
			}
			return res
		},
	}
	ex.Use(shout, executor.Timeout(2*time.Second))

	res, err := ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
	fmt.Println(res.ForLLM, err)
	// Output:
	// HELLO, ADA! <nil>
}

// ExecuteAll runs a batch and returns the results in call order, whatever
// the scheduling. In parallel mode calls overlap unless their tool says
// ConcurrencySafe false; in mixed mode only tools that say true overlap.
// Here two calls of a tool that waits for its partner can finish only
// because they overlap, and the unsafe "log" call runs alone, after them.
func ExampleExecutor_ExecuteAll() {
	// ctx bounds the wait, should the calls not overlap.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var met sync.WaitGroup
	met.Add(2)
	together := make(chan struct{})
	go func() { met.Wait(); close(together) }()
	meet := core.Tool{
		Name:            "meet",
		ConcurrencySafe: core.Bool(true),
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			met.Done()
			select {
			case <-together: // both calls are running
				return "met " + string(args), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
	log := core.Tool{
		Name:            "log",
		ConcurrencySafe: core.Bool(false),
		Func:            func(ctx context.Context, args json.RawMessage) (any, error) { return "logged", nil },
	}
	reg := core.NewRegistry()
	reg.RegisterTools(meet, log)
	ex := executor.New(reg, executor.WithExecutionMode(executor.ModeMixed))
	defer ex.Close()

	results := ex.ExecuteAll(ctx, []core.Call{
		{Name: "meet", Args: json.RawMessage(`{"who":"A"}`)},
		{Name: "meet", Args: json.RawMessage(`{"who":"B"}`)},
		{Name: "log"},
	}, executor.WithLimit(4))
	for _, r := range results {
		fmt.Println(r.CallID, r.Tool, r.ForLLM, r.Err)
	}
	// Output:
	// call_1 meet met {"who":"A"} <nil>
	// call_2 meet met {"who":"B"} <nil>
	// call_3 log logged <nil>
}

// Decide says what the before hooks, validation and approval would decide
// for a call, without running the tool or any middleware: what
// `agentsh explain` prints. A model's call of a tool not declared ReadOnly
// asks when no hook decides.
func ExampleExecutor_Decide() {
	ctx := context.Background()
	reg := core.NewRegistry()
	reg.RegisterTools(greetTool())
	ex := executor.New(reg)
	defer ex.Close()

	for _, origin := range []core.Origin{core.OriginPerson, core.OriginModel} {
		r := ex.Decide(ctx, core.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`), Origin: origin})
		fmt.Println(origin, r.Outcome, r.Reason)
	}
	// Output:
	// person allow a person's calls run unless a policy decides
	// model ask the model called greet, which is not read-only
}

// Retry runs a call again when it fails or times out, but only for a tool
// declared Idempotent (or a call with a DedupKey): running anything else
// twice could do its effect twice.
func ExampleRetry() {
	ctx := context.Background()
	attempts := 0
	flaky := core.Tool{
		Name:       "flaky",
		Idempotent: true,
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			attempts++
			if attempts < 3 {
				return nil, fmt.Errorf("attempt %d: connection reset", attempts)
			}
			return "ok", nil
		},
	}
	reg := core.NewRegistry()
	reg.RegisterTools(flaky)
	ex := executor.New(reg)
	defer ex.Close()
	ex.Use(executor.Retry(executor.RetryOptions{Attempts: 3, Backoff: -1})) // -1: no wait between attempts

	res, err := ex.InvokeTool(ctx, "flaky", nil)
	fmt.Println(res.ForLLM, err, "after", attempts, "attempts")
	// Output:
	// ok <nil> after 3 attempts
}
