package policies_test

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/process"
)

// noExec fails every command: a policy is checked through Decide, which
// must never run one.
type noExec struct{ ran atomic.Int64 }

func (n *noExec) Exec(context.Context, process.ExecRequest) (process.ExecResult, error) {
	n.ran.Add(1)
	return process.ExecResult{ExitCode: 1, Output: []byte("a test ran a command")}, nil
}

var _ process.ExecOps = (*noExec)(nil)

// Ops runs nothing in any sandbox profile either.
func (n *noExec) Ops(process.Profile) process.ExecOps { return n }

// policy is an executor with the built-in tools (over an empty directory
// and an ExecOps that runs nothing) and the policy files loaded.
type policy struct {
	t    testing.TB
	ex   *executor.Executor
	exec *noExec
	dir  string
}

func load(t testing.TB, files ...string) *policy {
	t.Helper()
	p := &policy{t: t, exec: &noExec{}, dir: t.TempDir()}
	p.ex = executor.New(nil, executor.WithValidateArguments(true),
		executor.WithSandboxing(executor.Sandboxing{Backend: func() (string, error) { return "test", nil }}))
	t.Cleanup(func() { _ = p.ex.Close() })
	ext := tools.NewExtension(tools.ExtensionConfig{WorkingDir: p.dir, Exec: p.exec, Sandbox: p.exec})
	if err := p.ex.Install(context.Background(), ext); err != nil {
		t.Fatal(err)
	}
	in := starlark.New(script.NewHost(p.ex, os.Stderr), starlark.Options{})
	for _, f := range files {
		if err := in.LoadFile(context.Background(), f); err != nil {
			t.Fatalf("loading %s: %v", f, err)
		}
	}
	t.Cleanup(func() {
		if n := p.exec.ran.Load(); n != 0 {
			t.Errorf("%d commands ran; Decide must run none", n)
		}
		if left, _ := os.ReadDir(p.dir); len(left) != 0 {
			t.Errorf("the working directory is not empty after deciding: %v", left)
		}
	})
	return p
}

// decide is the ruling for one call, as `agentsh explain` gives it.
func (p *policy) decide(origin core.Origin, tool string, args map[string]any) *executor.Ruling {
	p.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.ex.Decide(context.Background(), core.Call{Name: tool, Args: raw, Origin: origin})
}

// bash is the ruling for a person's bash call.
func (p *policy) bash(command, workdir string) *executor.Ruling {
	args := map[string]any{"command": command}
	if workdir != "" {
		args["workdir"] = workdir
	}
	return p.decide(core.OriginPerson, "bash", args)
}
