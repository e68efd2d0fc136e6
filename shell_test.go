package agentsh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

func newShell(t *testing.T, opts ...agentsh.Option) *agentsh.Shell {
	t.Helper()
	sh, err := agentsh.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := sh.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return sh
}

// The zero Config is a working shell: the built-in tools, validation on,
// calls of a person unconfined and of the model in the workspace.
func TestNewDefaults(t *testing.T) {
	dir := t.TempDir()
	sh := newShell(t, agentsh.WithWorkDir(dir))
	names := sh.ToolNames()
	for _, want := range []string{"read_file", "write_file", "bash", "grep", "glob", "run_code", "task"} {
		if !slices.Contains(names, want) {
			t.Errorf("ToolNames %v lacks %s", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("ToolNames %v are not sorted", names)
	}
	if sh.GetTool("nope") != nil || sh.GetTool("read_file") == nil {
		t.Error("GetTool: want nil for an unknown tool and the tool for read_file")
	}
	if !sh.Executor().ValidateArguments() {
		t.Error("arguments are not validated by default")
	}
	res, err := sh.InvokeTool(context.Background(), "write_file", json.RawMessage(`{"path":"a.txt","content":"x"}`))
	if err != nil || !res.OK() {
		t.Fatalf("write_file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "x" {
		t.Errorf("a.txt holds %q, want x", b)
	}
	res, err = sh.InvokeTool(context.Background(), "read_file", json.RawMessage(`{"path":42}`))
	if err == nil || res.Kind() != core.KindInvalidArguments || res.Err != err {
		t.Errorf("bad arguments: %v (%s), want invalid_arguments, the result's error", err, res.Kind())
	}
	if _, err := sh.InvokeTool(context.Background(), "read_file", json.RawMessage(`{"path":"../../etc/passwd"}`)); err == nil {
		t.Error("read_file reached outside the workdir")
	}
}

// Every value New cannot use is an *OptionError naming its option, and
// nothing is left running.
func TestOptionErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		opt    agentsh.Option
		option string
		want   string
	}{
		{agentsh.WithGrepBackend("ag"), "WithGrepBackend", `unknown grep backend "ag"`},
		{agentsh.WithGlobBackend("locate"), "WithGlobBackend", `unknown glob backend "locate"`},
		{agentsh.WithSandbox("everywhere"), "WithSandbox", `"everywhere"`},
		{agentsh.WithSandboxBackend("docker"), "WithSandboxBackend", `got "docker", want auto, bwrap or landlock`},
		{agentsh.WithAllowHosts("not a host"), "WithAllowHosts", "not a host"},
		{agentsh.WithLang("cobol"), "WithLang", `no language "cobol" is registered`},
		{agentsh.WithModel("nope:x"), "WithModel", `unknown provider "nope"`},
		{agentsh.WithPricesFile(missing), "WithPricesFile", "give the path of a price file"},
		{agentsh.WithWorkDir(missing), "WithWorkDir", "missing"},
	} {
		t.Run(c.option, func(t *testing.T) {
			sh, err := agentsh.New(c.opt)
			var oe *agentsh.OptionError
			if !errors.As(err, &oe) || oe.Option != c.option || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New: %v (%T), want an *OptionError of %s saying %q", err, err, c.option, c.want)
			}
			if sh != nil {
				t.Error("New returned a shell with its error")
			}
			if !strings.HasPrefix(err.Error(), "agentsh."+c.option) {
				t.Errorf("error %q does not begin with the option's name", err)
			}
		})
	}
}

// Every option reaches what it configures: none is dropped.
func TestOptionsApply(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var out bytes.Buffer
	store := executor.NewMemoryStore()
	approver := core.ApproverFunc(func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{Verdict: core.VerdictAllow, Reason: "test"}, nil
	})
	var events []string
	var mu sync.Mutex
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{Content: "done"}, nil
	}}
	var record bytes.Buffer
	ext := toolExtension{core.Tool{Name: "from_extension", Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}}
	script := filepath.Join(dir, "tools.lua")
	os.WriteFile(script, []byte(`tool{name = "from_script", fn = function(args) return "lua" end}`), 0o644)

	sh := newShell(t,
		agentsh.WithWorkDir(dir), agentsh.WithOutput(&out), agentsh.WithLang("lua"),
		agentsh.WithScripts(script), agentsh.WithExtensions(ext),
		agentsh.WithValidateArguments(false), agentsh.WithMode(executor.ModeMixed), agentsh.WithConcurrency(3),
		agentsh.WithPermissions(executor.PermissionsDenyUnlisted), agentsh.WithApprover(approver),
		agentsh.WithArtifactOffload(store, 10), agentsh.WithSandbox(core.SandboxReadOnly),
		agentsh.WithProvider(model), agentsh.WithMaxTurns(7), agentsh.WithBudget(agent.Limits{ToolCalls: 5}),
		agentsh.WithObserver(func(e agent.Event) { mu.Lock(); events = append(events, e.Type); mu.Unlock() }),
		agentsh.WithSessions(),
		func(c *agentsh.Config) { c.Record = &record },
	)
	ex := sh.Executor()
	switch {
	case ex.ValidateArguments():
		t.Error("WithValidateArguments(false) dropped")
	case ex.Mode() != executor.ModeMixed:
		t.Errorf("mode %v, want mixed", ex.Mode())
	case ex.Concurrency() != 3:
		t.Errorf("concurrency %d, want 3", ex.Concurrency())
	case ex.Permissions() != executor.PermissionsDenyUnlisted:
		t.Errorf("permissions %v, want deny-unlisted", ex.Permissions())
	case ex.Sandboxing().Automated != core.SandboxReadOnly || ex.Sandboxing().Person != core.SandboxReadOnly:
		t.Errorf("sandboxing %+v, want read-only for everyone", ex.Sandboxing())
	case sh.Agent().Agent().Budget().Limits().ToolCalls != 5:
		t.Errorf("budget %+v, want 5 tool calls", sh.Agent().Agent().Budget().Limits())
	case sh.GetTool("from_extension") == nil || sh.GetTool("from_script") == nil:
		t.Errorf("tools %v, want the extension's and the script's", sh.ToolNames())
	}
	if v, err := sh.Eval(context.Background(), "lua", `print("to out"); return 1 + 1`); err != nil || v != "2" || out.String() != "to out\n" {
		t.Errorf("Eval in Lua: %q, %v; output %q", v, err, out.String())
	}
	reply, err := sh.Ask(context.Background(), "hello")
	if err != nil || reply.Text != "done" || reply.SessionID == "" {
		t.Fatalf("Ask: %+v, %v; want the model's answer in a saved session", reply, err)
	}
	mu.Lock()
	if !slices.Contains(events, "model_response") {
		t.Errorf("observer saw %v, want a model_response", events)
	}
	mu.Unlock()
	if !strings.Contains(record.String(), `"done"`) {
		t.Errorf("the record holds %q, want the exchange", record.String())
	}
	list, _, err := agentsh.ListSessions(dir)
	if err != nil || len(list) != 1 || list[0].ID != reply.SessionID {
		t.Errorf("ListSessions: %v, %v; want the session of the ask", list, err)
	}
}

// toolExtension contributes one tool.
type toolExtension struct{ tool core.Tool }

func (e toolExtension) Name() string       { return "test-tools" }
func (e toolExtension) Tools() []core.Tool { return []core.Tool{e.tool} }

// A script that fails to load is New's error, with its position; Close
// may be called twice, and a shell closed refuses calls.
func TestScriptsAndClose(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.star")
	os.WriteFile(bad, []byte("x = \n"), 0o644)
	if _, err := agentsh.New(agentsh.WithWorkDir(dir), agentsh.WithScripts(bad)); err == nil || !strings.Contains(err.Error(), "bad.star:1") {
		t.Errorf("New with a broken script: %v, want its position", err)
	}
	sh, err := agentsh.New(agentsh.WithoutBuiltins())
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sh.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := sh.InvokeTool(context.Background(), "nope", nil); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// Calls from many goroutines into a Starlark tool, with a policy that
// counts them: no call is lost, doubled or given another's result.
func TestConcurrentCalls(t *testing.T) {
	sh := newShell(t, agentsh.WithoutBuiltins(), agentsh.WithOutput(&bytes.Buffer{}))
	_, err := sh.Eval(context.Background(), "tools.star", `
def echo(args):
    return "echo " + str(args["n"])
tool(name = "echo", fn = echo, parameters = {"type": "object", "properties": {"n": {"type": "integer"}}})
def count(call):
    state.incr("calls")
before(count)
`)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := sh.InvokeTool(context.Background(), "echo", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
			if err != nil {
				errs <- err
				return
			}
			if got, want := res.Display(), fmt.Sprintf("echo %d", i); got != want {
				errs <- fmt.Errorf("call %d got %q, want %q", i, got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	v, err := sh.Eval(context.Background(), "check.star", `state.get("calls")`)
	if err != nil || v != fmt.Sprint(n) {
		t.Errorf("the policy counted %q calls (%v), want %d", v, err, n)
	}
}
