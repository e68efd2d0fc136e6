package starlark_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
)

// policy is a Starlark policy: a before hook that guards the Go tool
// "transfer", and an after hook that audits every call.
const policy = `
def limit(call):
    if call.args["amount"] > 100:
        return deny("transfers over 100 need a person")
    if call.args["to"] == "":
        return rewrite({"to": "savings", "amount": call.args["amount"]})

before(limit, tools = ["transfer"])
after(lambda call, result: print("audit:", call.name, call.args, result.error_kind or "ok"))
`

// A Starlark policy guards Go tools: the Go program registers its tools
// with an executor, a script.Host binds the script API to that executor,
// and the hooks the script defines apply to every call, including the
// ones Go makes.
func Example() {
	ctx := context.Background()
	reg := core.NewRegistry()
	reg.RegisterTools(core.Tool{
		Name: "transfer",
		Func: func(ctx context.Context, args json.RawMessage) (any, error) {
			return "sent " + string(args), nil
		},
	})
	ex := executor.New(reg)
	defer ex.Close()

	host := script.NewHost(ex, os.Stdout) // print() and hook output go to os.Stdout
	in := starlark.New(host, starlark.Options{})
	defer in.Close()
	if err := in.Run(ctx, "policy.star", []byte(policy)); err != nil {
		fmt.Println(err)
		return
	}

	for _, args := range []string{`{"to":"bob","amount":20}`, `{"to":"","amount":5}`, `{"to":"eve","amount":5000}`} {
		res, err := ex.InvokeTool(ctx, "transfer", json.RawMessage(args))
		if err != nil {
			fmt.Println("=> error:", err)
			continue
		}
		fmt.Println("=>", res.ForLLM)
	}
	// Output:
	// audit: transfer {"amount": 20, "to": "bob"} ok
	// => sent {"to":"bob","amount":20}
	// audit: transfer {"amount": 5, "to": "savings"} ok
	// => sent {"amount":5,"to":"savings"}
	// audit: transfer {"amount": 5000, "to": "eve"} rejected
	// => error: rejected by "limit": transfers over 100 need a person
}

// Scripts define tools too; Go calls them through the same executor, so
// the hooks of every script and of Go apply to them, and the schema the
// script declares is checked before its function runs.
func ExampleNew() {
	ctx := context.Background()
	ex := executor.New(core.NewRegistry(), executor.WithValidateArguments(true))
	defer ex.Close()
	in := starlark.New(script.NewHost(ex, os.Stdout), starlark.Options{})
	defer in.Close()

	err := in.Run(ctx, "tools.star", []byte(`
def shout(args):
    return args["text"].upper() + "!"

tool(name = "shout", fn = shout, description = "Shouts.",
     parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ex.Registry().ToolNames())
	res, err := ex.InvokeTool(ctx, "shout", json.RawMessage(`{"text":"hello"}`))
	fmt.Println(res.ForLLM, err)
	res, err = ex.InvokeTool(ctx, "shout", json.RawMessage(`{}`))
	fmt.Println(err)
	// Output:
	// [shout]
	// HELLO! <nil>
	// invalid arguments for shout: (root): missing properties: 'text'
}
