package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// fileTool declares its arguments' effects and echoes the arguments it
// was given, so a test sees what the tool saw.
func fileTool(name string, effects ...core.ArgEffect) core.Tool {
	return core.Tool{Name: name, Effects: effects,
		Func: func(_ context.Context, args json.RawMessage) (any, error) { return string(args), nil }}
}

// seen records what the before hooks, the after hooks and the tool saw.
type seen struct {
	mu      sync.Mutex
	before  []string
	after   []string
	effects []*core.Effects
	raw     []string
}

func (s *seen) hooks() (core.BeforeHook, core.AfterHook) {
	return core.BeforeHook{Name: "spy", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.before = append(s.before, string(c.Args))
			s.effects = append(s.effects, c.Effects)
			s.raw = append(s.raw, string(c.RawArgs))
			return nil, nil
		}}, core.AfterHook{Name: "audit", Func: func(_ context.Context, c *core.Call, _ *core.Result) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.after = append(s.after, string(c.Args))
			return nil
		}}
}

func workTree(t *testing.T) string {
	t.Helper()
	w := filepath.Join(t.TempDir(), "w")
	for _, d := range []string{"src", "lib/v2"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, ".env"), []byte("SECRET=1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(w, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("lib/v2", filepath.Join(w, "current")); err != nil {
		t.Fatal(err)
	}
	return w
}

// Every spelling of one path reaches the hooks, the tool and the after
// hooks as the same canonical arguments; RawArgs keeps what was sent.
func TestCanonicalSpellings(t *testing.T) {
	w := workTree(t)
	var s seen
	b, a := s.hooks()
	ex := newExec(t, []core.Tool{fileTool("read", core.ArgEffect{Arg: "path", Kind: core.ArgRead})},
		executor.WithWorkDir(w), executor.WithBeforeHooks(b), executor.WithAfterHooks(a))
	for _, spelling := range []string{
		".env", "./.env", "src/../.env", `"\x2eenv"`, `"\056env"`, `"src\57..\57.env"`,
		filepath.Join(w, ".env"), filepath.Join(w, "src", "..", ".env"), "notes.txt", "src/../notes.txt",
		"current/../.env", // ".." is lexical, as the tools read it: not lib/.env
	} {
		raw, _ := json.Marshal(map[string]string{"path": spelling})
		s = seen{}
		res, err := ex.InvokeTool(context.Background(), "read", raw)
		want := `{"path":".env"}`
		if err != nil {
			t.Errorf("%s: %v", spelling, err)
			continue
		}
		if res.ForLLM != want || len(s.before) != 1 || s.before[0] != want || s.after[0] != want {
			t.Errorf("%s: tool saw %s, hooks %q, after hooks %q; want %s everywhere", spelling, res.ForLLM, s.before, s.after, want)
		}
		if s.raw[0] != string(raw) {
			t.Errorf("%s: RawArgs %s, want what was sent, %s", spelling, s.raw[0], raw)
		}
		if got := s.effects[0].Reads; !reflect.DeepEqual(got, []string{".env"}) {
			t.Errorf("%s: reads %q", spelling, got)
		}
	}
}

// A path that leaves the working directory, lexically or through a
// link, is refused before any hook: invalid_arguments, recorded as the
// canonical step, seen by the after hooks.
func TestCanonicalRefusals(t *testing.T) {
	w := workTree(t)
	if err := os.Symlink("..", filepath.Join(w, "up")); err != nil {
		t.Fatal(err)
	}
	var s seen
	b, a := s.hooks()
	ex := newExec(t, []core.Tool{fileTool("write", core.ArgEffect{Arg: "path", Kind: core.ArgWrite})},
		executor.WithWorkDir(w), executor.WithBeforeHooks(b), executor.WithAfterHooks(a))
	for _, c := range []struct{ path, want string }{
		{"../x", "is outside the working directory"},
		{"src/../../x", "is outside the working directory"},
		{"/etc/passwd", "is outside the working directory"},
		{`"..\57x"`, "is outside the working directory"},
		{"up/x", "leads outside the working directory through a symbolic link"},
		{"current/../../x", "is outside the working directory"}, // lexical, as the tools read it
		{`"unterminated`, "not a valid quoted path"},
		{"a\x00b", "NUL byte"},
	} {
		s = seen{}
		raw, _ := json.Marshal(map[string]string{"path": c.path})
		res, _ := ex.InvokeTool(context.Background(), "write", raw)
		wantKind(t, res, core.KindInvalidArguments)
		if res.Err == nil || !strings.Contains(res.Err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.path, res.Err, c.want)
		}
		if len(s.before) != 0 || len(s.after) != 1 {
			t.Errorf("%q: before hooks ran %d times, after hooks %d; want 0 and 1", c.path, len(s.before), len(s.after))
		}
		if d := res.Decisions; len(d) == 0 || d[0].Stage != core.StageCanonical || d[0].Verdict != core.VerdictDeny {
			t.Errorf("%q: decisions %+v, want a canonical deny first", c.path, d)
		}
		r := ex.Decide(context.Background(), core.Call{Name: "write", Args: raw})
		if r.Outcome != core.VerdictDeny || r.Hook != "canonical" || !strings.Contains(r.Reason, c.want) {
			t.Errorf("%q: Decide %s by %q: %s", c.path, r.Outcome, r.Hook, r.Reason)
		}
	}
}

// A hook's rewrite is made canonical too: later hooks and the tool see it
// clean, and a rewrite that leaves the working directory is refused.
func TestCanonicalAfterRewrite(t *testing.T) {
	w := workTree(t)
	rewriteTo := func(p string) core.BeforeHook {
		return core.BeforeHook{Name: "rw", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"path":` + p + `}`), nil
		}}
	}
	var s seen
	b, _ := s.hooks()
	ex := newExec(t, []core.Tool{fileTool("write", core.ArgEffect{Arg: "path", Kind: core.ArgWrite})},
		executor.WithWorkDir(w), executor.WithBeforeHooks(rewriteTo(`"./src/../src/a.txt"`), b))
	res, err := ex.InvokeTool(context.Background(), "write", json.RawMessage(`{"path":"x"}`))
	if err != nil || res.ForLLM != `{"path":"src/a.txt"}` || s.before[0] != `{"path":"src/a.txt"}` {
		t.Fatalf("tool saw %s (%v), later hook %q; want src/a.txt", res.ForLLM, err, s.before)
	}
	if d := res.Decisions[0]; !d.Rewrote || string(d.ArgsAfter) != `{"path":"src/a.txt"}` {
		t.Errorf("the hook's record %+v, want its rewrite made canonical", d)
	}
	if got := s.effects[0].Writes; !reflect.DeepEqual(got, []string{"src/a.txt"}) {
		t.Errorf("effects after the rewrite: %q", got)
	}
	ex = newExec(t, []core.Tool{fileTool("write", core.ArgEffect{Arg: "path", Kind: core.ArgWrite})},
		executor.WithWorkDir(w), executor.WithBeforeHooks(rewriteTo(`"../escape"`)))
	res, _ = ex.InvokeTool(context.Background(), "write", json.RawMessage(`{"path":"x"}`))
	wantKind(t, res, core.KindRejected)
	if !strings.Contains(res.Err.Error(), "outside the working directory") {
		t.Errorf("rewrite out: %v", res.Err)
	}
}

// Effects of every kind, from the declarations.
func TestCanonicalEffects(t *testing.T) {
	w := workTree(t)
	ex := newExec(t, []core.Tool{
		fileTool("shell", core.ArgEffect{Arg: "workdir", Kind: core.ArgDir}, core.ArgEffect{Arg: "command", Kind: core.ArgShell}),
		fileTool("code", core.ArgEffect{Arg: "code", Kind: core.ArgCode, Language: "python3"}),
		fileTool("get", core.ArgEffect{Arg: "url", Kind: core.ArgURL}),
		fileTool("many", core.ArgEffect{Arg: "paths", Kind: core.ArgRead}, core.ArgEffect{Arg: "gone", Kind: core.ArgDelete}),
		fileTool("patch", core.ArgEffect{Arg: "input", Kind: core.ArgPatch}),
		fileTool("search", core.ArgEffect{Arg: "path", Kind: core.ArgRead, Default: "."}),
	}, executor.WithWorkDir(w))
	cases := []struct {
		tool, args string
		want       core.Effects
		canonical  string
	}{
		{"shell", `{"command":"rm -rf build","workdir":"./src/"}`,
			core.Effects{Shell: []core.ShellRun{{Command: "rm -rf build", Dir: "src"}}}, `{"command":"rm -rf build","workdir":"src"}`},
		{"shell", `{"command":"ls"}`, core.Effects{Shell: []core.ShellRun{{Command: "ls", Dir: "."}}}, ""},
		{"code", `{"code":"print(1)"}`, core.Effects{Code: []core.CodeRun{{Language: "python3", Code: "print(1)"}}}, ""},
		{"code", `{"code":"rm -rf x","language":"bash"}`, core.Effects{Shell: []core.ShellRun{{Command: "rm -rf x", Dir: "."}}}, ""},
		{"get", `{"url":"https://Example.COM:8443/a?b"}`, core.Effects{Hosts: []string{"example.com"}}, ""},
		{"many", `{"paths":["a","./b/../c",".env"],"gone":"current/old"}`,
			core.Effects{Reads: []string{"a", "c", ".env"}, Deletes: []string{"lib/v2/old"}}, `{"gone":"lib/v2/old","paths":["a","c",".env"]}`},
		{"search", `{}`, core.Effects{Reads: []string{"."}}, ""},
		{"patch", `{"input":"*** Begin Patch\n*** Add File: src/new.txt\n+x\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** Delete File: old.txt\n*** End Patch"}`,
			core.Effects{Writes: []string{"src/new.txt", "b.go"}, Deletes: []string{"a.go", "old.txt"}}, ""},
	}
	for _, c := range cases {
		r := ex.Decide(context.Background(), core.Call{Name: c.tool, Args: json.RawMessage(c.args)})
		got := *r.Effects
		norm := func(e core.Effects) core.Effects {
			for _, l := range []*[]string{&e.Reads, &e.Writes, &e.Deletes, &e.Hosts} {
				if len(*l) == 0 {
					*l = nil
				}
			}
			if len(e.Shell) == 0 {
				e.Shell = nil
			}
			if len(e.Code) == 0 {
				e.Code = nil
			}
			return e
		}
		if !reflect.DeepEqual(norm(got), norm(c.want)) {
			t.Errorf("%s %s: effects %+v, want %+v", c.tool, c.args, got, c.want)
		}
		want := c.canonical
		if want == "" {
			want = c.args
		}
		if string(r.Args) != want {
			t.Errorf("%s %s: canonical args %s, want %s", c.tool, c.args, r.Args, want)
		}
	}
	// A patch that writes outside, or cannot be read, is refused.
	for _, patch := range []string{
		"*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: /etc/x\n*** End Patch",
		"*** Begin Patch\n*** Explode: a\n*** End Patch",
	} {
		raw, _ := json.Marshal(map[string]string{"input": patch})
		r := ex.Decide(context.Background(), core.Call{Name: "patch", Args: raw})
		if r.Outcome != core.VerdictDeny || core.KindOf(r.Err) != core.KindInvalidArguments {
			t.Errorf("patch %q: %s %v, want refused", patch, r.Outcome, r.Err)
		}
	}
}

// A key sent twice counts once, as the tool reads it (the last one):
// hooks never see one value while the tool uses another.
func TestCanonicalDuplicateKeys(t *testing.T) {
	w := workTree(t)
	var s seen
	b, _ := s.hooks()
	ex := newExec(t, []core.Tool{fileTool("read", core.ArgEffect{Arg: "path", Kind: core.ArgRead})},
		executor.WithWorkDir(w), executor.WithBeforeHooks(b))
	res, err := ex.InvokeTool(context.Background(), "read", json.RawMessage(`{"path":"README.md","path":".env"}`))
	if err != nil || res.ForLLM != `{"path":".env"}` || s.before[0] != `{"path":".env"}` {
		t.Errorf("tool saw %s (%v), hook %q; want one path, .env", res.ForLLM, err, s.before)
	}
}

// An unregistered tool may do anything; a tool that declares nothing
// keeps its arguments as sent.
func TestCanonicalUndeclared(t *testing.T) {
	var s seen
	b, _ := s.hooks()
	ex := newExec(t, []core.Tool{okTool("plain")}, executor.WithBeforeHooks(b))
	ex.InvokeTool(context.Background(), "plain", json.RawMessage(`{"path":"../x"}`))
	ex.InvokeTool(context.Background(), "nobody", json.RawMessage(`{}`))
	fx := s.effects[0]
	empty := len(fx.Reads)+len(fx.Writes)+len(fx.Deletes)+len(fx.Shell)+len(fx.Code)+len(fx.Hosts) == 0
	if len(s.before) != 2 || s.before[0] != `{"path":"../x"}` || fx.Unknown || !empty || !s.effects[1].Unknown {
		t.Errorf("before %q, effects %+v %+v", s.before, s.effects[0], s.effects[1])
	}
}

// The executor takes the built-in tools' working directory unless told
// one; a call may bring its own (a hook adapter's event).
func TestWorkDirSources(t *testing.T) {
	w := workTree(t)
	ex := executor.New(nil)
	if err := ex.Install(context.Background(), workdirExt{dir: w, tools: []core.Tool{fileTool("read", core.ArgEffect{Arg: "path", Kind: core.ArgRead})}}); err != nil {
		t.Fatal(err)
	}
	if ex.WorkDir() != w {
		t.Errorf("WorkDir %q, want the extension's %q", ex.WorkDir(), w)
	}
	r := ex.Decide(context.Background(), core.Call{Name: "read", Args: json.RawMessage(`{"path":"` + filepath.Join(w, "src") + `"}`)})
	if string(r.Args) != `{"path":"src"}` || r.WorkDir != w {
		t.Errorf("args %s in %s", r.Args, r.WorkDir)
	}
	other := filepath.Join(w, "lib")
	r = ex.Decide(context.Background(), core.Call{Name: "read", WorkDir: other, Args: json.RawMessage(`{"path":"` + filepath.Join(other, "v2") + `"}`)})
	if string(r.Args) != `{"path":"v2"}` || r.WorkDir != other {
		t.Errorf("a call's own workdir: args %s in %s", r.Args, r.WorkDir)
	}
	set := executor.New(nil, executor.WithWorkDir(other))
	if err := set.Install(context.Background(), workdirExt{dir: w}); err != nil {
		t.Fatal(err)
	}
	if set.WorkDir() != other {
		t.Errorf("WithWorkDir %q was replaced by the extension's: %q", other, set.WorkDir())
	}
}

type workdirExt struct {
	dir   string
	tools []core.Tool
}

func (workdirExt) Name() string               { return "workdir" }
func (x workdirExt) WorkingDir() string       { return x.dir }
func (x workdirExt) Tools() []core.Tool       { return x.tools }
func (workdirExt) Init(context.Context) error { return nil }

var (
	_ core.WorkingDirProvider = workdirExt{}
	_ core.ToolProvider       = workdirExt{}
)

// A model's call outside an agent's run is a top-level agent's, whoever
// sent it: Decide as a model, an MCP client, a hook.
func TestAutomatedCallsAreMain(t *testing.T) {
	ex := newExec(t, []core.Tool{okTool("t")})
	for _, o := range []core.Origin{core.OriginModel, core.OriginMCP, core.OriginHook} {
		var agent string
		ex := newExec(t, []core.Tool{okTool("t")}, executor.WithBeforeHooks(core.BeforeHook{Name: "a",
			Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) { agent = c.Agent; return nil, nil }}))
		ex.Decide(context.Background(), core.Call{Name: "t", Origin: o})
		if agent != executor.TopAgent {
			t.Errorf("%s: agent %q, want %q", o, agent, executor.TopAgent)
		}
	}
	r := ex.Decide(context.Background(), core.Call{Name: "t"})
	if r.Origin != core.OriginPerson {
		t.Errorf("origin %s", r.Origin)
	}
}

// Changing the working directory while calls run loses nothing and
// races nothing (run with -race).
func TestWorkDirConcurrent(t *testing.T) {
	a, b := workTree(t), workTree(t)
	ex := newExec(t, []core.Tool{fileTool("read", core.ArgEffect{Arg: "path", Kind: core.ArgRead})}, executor.WithWorkDir(a))
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				ex.SetWorkDir(b)
				ex.SetWorkDir(a)
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				res, err := ex.InvokeTool(context.Background(), "read", json.RawMessage(`{"path":"./src"}`))
				if err != nil || res.ForLLM != `{"path":"src"}` {
					t.Errorf("%s %v", res.ForLLM, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
