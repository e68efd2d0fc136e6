package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/core"
)

// A registry holds tools by name. Names are checked, schemas compiled and
// duplicates refused when the tools are registered, not when they are called.
func ExampleRegistry_RegisterTools() {
	echo := func(ctx context.Context, args json.RawMessage) (any, error) { return string(args), nil }
	reg := core.NewRegistry()
	err := reg.RegisterTools(
		core.Tool{Name: "echo", Description: "Returns its arguments.", Func: echo},
		core.Tool{Name: "add", Func: echo, Parameters: json.RawMessage(`{"type":"object"}`)},
	)
	fmt.Println(err, reg.ToolNames())

	err = reg.RegisterTools(core.Tool{Name: "echo", Func: echo})
	var dup *core.DuplicateToolError
	fmt.Println(errors.As(err, &dup), dup.Name)

	fmt.Println(reg.RegisterTools(core.Tool{Name: "files.read", Func: echo}))
	fmt.Println(reg.RegisterTools(core.Tool{Name: "bad", Func: echo, Parameters: json.RawMessage(`{"type":"objet"}`)}))

	// ReplaceTools is how a tool is defined again on purpose.
	fmt.Println(reg.ReplaceTools(core.Tool{Name: "echo", Func: echo}))
	// Output:
	// <nil> [add echo]
	// true echo
	// register tools: invalid tool name "files.read": names must match ^[A-Za-z0-9_-]{1,64}$ (letters, digits, _ and -; no dots)
	// register tools: tool "bad": parameters schema must have "type": "object", got "objet"
	// <nil>
}

// A tool's function may return more than a string: the executor maps what it
// returns into a Result with SetOutput. The model reads ForLLM; a person is
// shown Display() unless the result is Silent; programs read Data.
func ExampleResult_SetOutput() {
	outputs := []any{
		"plain text",
		core.DualToolOutput{ForLLM: "3 files", ForUser: "a.go\nb.go\nc.go"},
		core.SilentResult{ForLLM: "noted"},
		core.DataOutput{Text: "exit 0", Data: map[string]any{"exit_code": 0}},
		map[string]any{"b": 2, "a": 1},
	}
	for _, out := range outputs {
		var r core.Result
		if err := r.SetOutput(out); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("model %q, person %q, silent %v, data %v\n", r.ForLLM, r.Display(), r.Silent, r.Data)
	}
	// Output:
	// model "plain text", person "plain text", silent false, data <nil>
	// model "3 files", person "a.go\nb.go\nc.go", silent false, data <nil>
	// model "noted", person "noted", silent true, data <nil>
	// model "exit 0", person "exit 0", silent false, data map[exit_code:0]
	// model "{\"a\":1,\"b\":2}", person "{\"a\":1,\"b\":2}", silent false, data <nil>
}

// Every call that does not succeed has a Kind, which errors.Is finds in
// any error the pipeline returns, and which scripts read as r.error_kind.
func ExampleKindOf() {
	err := &core.Error{Kind: core.KindRejected, Tool: "bash", Message: `rejected by "policy": no rm`}
	fmt.Println(core.KindOf(err), errors.Is(err, core.ErrRejected), errors.Is(err, core.ErrTimeout))
	fmt.Println(core.KindOf(context.DeadlineExceeded), core.KindOf(errors.New("disk full")), core.KindOf(nil) == "")
	// Output:
	// rejected true false
	// timeout failed true
}

// A before hook's verdict is an error: Deny (or any other error) refuses
// the call, Ask asks the Approver, Allow lets it run. VerdictOf reads one back.
func ExampleVerdictOf() {
	for _, err := range []error{nil, core.Allow("a test file"), core.Ask("writes outside src/"), core.Deny("no secrets"), errors.New("hook crashed")} {
		v, reason := core.VerdictOf(err)
		fmt.Printf("%s %q\n", v, reason)
	}
	// Output:
	// none ""
	// allow "a test file"
	// ask "writes outside src/"
	// deny "no secrets"
	// deny "hook crashed"
}
