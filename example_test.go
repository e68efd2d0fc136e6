package agentsh_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsh/agentsh"
	_ "github.com/agentsh/agentsh/all" // the languages and model adapters
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// greet is a Go tool. It is read-only: the model's calls of it run
// unless a policy says otherwise.
var greet = core.Tool{
	Name:        "greet",
	Description: "Greets a person by name.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	ReadOnly:    true,
	Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ Name string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return "Hello, " + a.Name + "!", nil
	},
}

// policy guards greet: a before hook in Starlark that refuses one name.
const policy = `
def no_mallory(call):
    if call.args["name"] == "Mallory":
        return deny("Mallory is not welcome")

before(no_mallory, tools = ["greet"])
`

// A shell with the built-in tools on a directory, a Go tool and a
// Starlark policy that guards it. Every call, from Go, a script or a
// model, goes through the same pipeline.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "agentsh-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "policy.star"), []byte(policy), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644)

	sh, err := agentsh.New(agentsh.WithWorkDir(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	if err := sh.RegisterTools(greet); err != nil {
		fmt.Println(err)
		return
	}
	if err := sh.Load(ctx, filepath.Join(dir, "policy.star")); err != nil {
		fmt.Println(err)
		return
	}

	for _, name := range []string{"Ada", "Mallory"} {
		res, err := sh.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil {
			fmt.Printf("error (%s): %v\n", res.Kind(), err)
			continue
		}
		fmt.Println(res.Display())
	}
	res, _ := sh.InvokeTool(ctx, "read_file", json.RawMessage(`{"path":"notes.txt"}`))
	fmt.Print(res.Display())
	// Output:
	// Hello, Ada!
	// error (rejected): rejected by "no_mallory": Mallory is not welcome
	//      1	buy milk
}

// An agent run, offline: provider.Func is a scripted model. It asks to
// greet two people, and then answers with what the tools said; the
// Starlark policy refuses one of the calls, and the model is told why.
func ExampleShell_Ask() {
	ctx := context.Background()
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == provider.RoleUser {
			return provider.Response{ToolCalls: []provider.ToolCall{
				{ID: "c1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)},
				{ID: "c2", Name: "greet", Args: json.RawMessage(`{"name":"Mallory"}`)},
			}}, nil
		}
		var said []string
		for _, m := range req.Messages {
			if m.Role == provider.RoleTool {
				said = append(said, m.Content)
			}
		}
		return provider.Response{Content: strings.Join(said, " / ")}, nil
	}}

	sh, err := agentsh.New(agentsh.WithoutBuiltins(), agentsh.WithProvider(model))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	sh.RegisterTools(greet)
	if _, err := sh.Eval(ctx, "policy.star", policy); err != nil {
		fmt.Println(err)
		return
	}

	reply, err := sh.Ask(ctx, "Greet Ada and Mallory.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Text)
	for _, d := range reply.Denials {
		fmt.Printf("denied: %s %s by %s\n", d.Tool, d.CallID, d.Hook)
	}
	// Output:
	// Hello, Ada! / error (rejected): rejected by "no_mallory": Mallory is not welcome
	// denied: greet c2 by no_mallory
}

// A value New cannot use is an *OptionError that names the option, so a
// program can say it in its own terms.
func ExampleOptionError() {
	_, err := agentsh.New(agentsh.WithGrepBackend("ag"))
	var oe *agentsh.OptionError
	if errors.As(err, &oe) {
		fmt.Println(oe.Option)
		fmt.Println(oe.Err)
	}
	// Output:
	// WithGrepBackend
	// unknown grep backend "ag": want native or ripgrep
}

// What the policies would decide of a call, without running anything:
// the executor's Decide, in the words agentsh explain prints.
func ExampleExplainText() {
	sh, err := agentsh.New(agentsh.WithoutBuiltins())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	sh.RegisterTools(greet)
	sh.Eval(context.Background(), "policy.star", policy)

	r := sh.Executor().Decide(context.Background(), core.Call{Name: "greet", Args: json.RawMessage(`{"name":"Mallory"}`), Origin: core.OriginModel})
	fmt.Print(agentsh.ExplainText(r))
	// Output:
	// tool-before  no_mallory at policy.star:2  deny  Mallory is not welcome
	// arguments: {"name":"Mallory"}
	// denied by no_mallory at policy.star:2: Mallory is not welcome
}

// How a run ended, for a batch runner: this model never answers, so the
// ask stops at its turn limit, and Ended says so.
func ExampleEnded() {
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{ToolCalls: []provider.ToolCall{{ID: "c", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)}}}, nil
	}}
	sh, err := agentsh.New(agentsh.WithoutBuiltins(), agentsh.WithProvider(model), agentsh.WithMaxTurns(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	sh.RegisterTools(greet)

	_, err = sh.Ask(context.Background(), "Greet Ada.")
	ending, why := agentsh.Ended(err, sh.Outcomes(), false)
	fmt.Println(ending == agentsh.EndedMaxTurns)
	fmt.Println(why)
	// Output:
	// true
	// an ask stopped at its turn limit after 2 turns, before the model's final answer
}

// A durable run from Go: each execution of the run is a shell composed
// WithJournal, so the Go tool's work is journaled; the run parks at a
// deferred approval, any process decides it, and the resume goes on
// without charging again.
func ExampleOpenRuns() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "agentsh-runs-")
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "order.star")
	os.WriteFile(script, []byte(`
before(lambda call: ask("shipping needs a person's yes"), tools = ["ship"])
print(invoke_tool("charge", {"order": 42}).output)
print(invoke_tool("ship", {"order": 42}).output)
`), 0o644)

	charges := 0
	tools := []core.Tool{
		{Name: "charge", Func: func(context.Context, json.RawMessage) (any, error) {
			charges++
			return "charged order 42", nil
		}},
		{Name: "ship", Func: func(context.Context, json.RawMessage) (any, error) { return "shipped order 42", nil }},
	}
	// run executes the run: every time, from the start.
	run := func(ctx context.Context, j *agentsh.RunJournal, spec agentsh.RunSpec, out io.Writer) (agentsh.RunOutcome, error) {
		sh, err := agentsh.New(agentsh.WithWorkDir(spec.WorkDir), agentsh.WithOutput(out), agentsh.WithJournal(j))
		if err != nil {
			return agentsh.RunOutcome{ExitCode: 2, Error: err.Error()}, nil
		}
		defer sh.Close()
		if err := sh.RegisterTools(tools...); err != nil {
			return agentsh.RunOutcome{ExitCode: 2, Error: err.Error()}, nil
		}
		if err := sh.Load(ctx, spec.Script); err != nil {
			return agentsh.RunOutcome{ExitCode: 1, Error: err.Error()}, nil
		}
		return agentsh.RunOutcome{}, nil
	}

	runs, err := agentsh.OpenRuns(ctx, agentsh.RunsConfig{DB: "sqlite:" + filepath.Join(dir, "runs.db"), Run: run})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer runs.Close()
	hash, _ := agentsh.HashFile(script)
	spec := agentsh.RunSpec{ID: "order-42", Script: script, ScriptHash: hash, WorkDir: dir, Approve: "defer"}
	_, err = runs.Start(ctx, spec, os.Stdout)
	var stopped *agentsh.RunStopped
	if errors.As(err, &stopped) && stopped.Approval != nil {
		fmt.Println("waiting for", stopped.Approval.ID, "to ship")
	}
	// From any process that opens the same database:
	if _, err := runs.Decide(ctx, "order-42.a1", agentsh.DecideOptions{Approve: true, Reason: "paid"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("-- resumed:")
	if _, err := runs.Resume(ctx, "order-42", os.Stdout, agentsh.ResumeOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("charges:", charges)
	// Output:
	// charged order 42
	// waiting for order-42.a1 to ship
	// -- resumed:
	// charged order 42
	// shipped order 42
	// charges: 1
}

// An audit log: every call leaves a hash-chained record, the refused
// one too, and VerifyAuditFile checks the chain.
func ExampleWithAudit() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "agentsh-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "policy.star"), []byte(policy), 0o644)
	log := filepath.Join(dir, "audit.jsonl")

	sh, err := agentsh.New(agentsh.WithWorkDir(dir), agentsh.WithAudit(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	sh.RegisterTools(greet)
	sh.Load(ctx, filepath.Join(dir, "policy.star"))
	for _, name := range []string{"Ada", "Mallory"} {
		sh.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"`+name+`"}`))
	}
	sh.Close()

	rep, err := agentsh.VerifyAuditFile(log, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Intact(), rep.Records)
	b, _ := os.ReadFile(log)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Seq     int
			Call    struct{ Tool string }
			Outcome struct{ Verdict, Hook string }
		}
		json.Unmarshal([]byte(line), &rec)
		fmt.Println(rec.Seq, rec.Call.Tool, rec.Outcome.Verdict, rec.Outcome.Hook)
	}
	// Output:
	// true 2
	// 1 greet allow default
	// 2 greet deny no_mallory
}
