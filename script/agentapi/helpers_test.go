package agentapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/agentapi"
	"github.com/agentsh/agentsh/script/internal/scripttest"
	"github.com/agentsh/agentsh/script/lua"
	sl "github.com/agentsh/agentsh/script/starlark"
)

// env is one host with the agent installed and an interpreter of each
// language on it, sharing one registry, pipeline and conversation.
type env struct {
	t    testing.TB
	ex   *executor.Executor
	host *script.Host
	sess *agentapi.Session
	star *sl.Interp
	lua  *lua.Interp
	out  *scripttest.Buffer

	mu     sync.Mutex
	events []agent.Event
}

// newEnv installs the agent with cfg (its Observer is the env's, unless
// cfg sets one) before creating the interpreters, as Install requires.
func newEnv(t testing.TB, cfg agentapi.Config) *env {
	t.Helper()
	e := &env{t: t, out: &scripttest.Buffer{}}
	e.ex = executor.New(core.NewRegistry(), executor.WithValidateArguments(true))
	e.host = script.NewHost(e.ex, e.out)
	if cfg.Observer == nil {
		cfg.Observer = e.observe
	}
	sess, err := agentapi.Install(e.host, cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	e.sess = sess
	e.star = sl.New(e.host, sl.Options{})
	e.lua = lua.New(e.host, lua.Options{})
	t.Cleanup(func() {
		// session_end hooks may be Lua functions: close the session first.
		if err := sess.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		e.lua.Close()
	})
	return e
}

func (e *env) observe(ev agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
}

// eventTypes lists the observed events as "type" or "type:tool=text".
func (e *env) eventTypes() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.events {
		s := ev.Type
		switch ev.Type {
		case "text":
			s += ":" + ev.Text
		case "tool_output":
			s += ":" + ev.Tool + "=" + ev.Text
		case "tool_error":
			s += ":" + ev.Tool + "=" + ev.ErrorKind + ": " + ev.Text
		}
		out = append(out, s)
	}
	return out
}

// execStar runs src as test.star under ctx.
func (e *env) execStar(ctx context.Context, src string) error {
	var err error
	scripttest.Bounded(e.t, "starlark", func() { _, err = e.star.ExecSource(ctx, "test.star", []byte(src)) })
	return err
}

// execLua runs src as test.lua under ctx.
func (e *env) execLua(ctx context.Context, src string) error {
	var err error
	scripttest.Bounded(e.t, "lua", func() { _, err = e.lua.ExecSource(ctx, "test.lua", []byte(src)) })
	return err
}

// runStar runs src, failing the test on error.
func (e *env) runStar(src string) {
	e.t.Helper()
	if err := e.execStar(context.Background(), src); err != nil {
		e.t.Fatalf("starlark failed: %v\noutput:\n%s", errDetail(err), e.out.String())
	}
}

// runLua runs src, failing the test on error.
func (e *env) runLua(src string) {
	e.t.Helper()
	if err := e.execLua(context.Background(), src); err != nil {
		e.t.Fatalf("lua failed: %v\noutput:\n%s", errDetail(err), e.out.String())
	}
}

// run runs src in lang ("star" or "lua").
func (e *env) run(lang, src string) {
	e.t.Helper()
	if lang == "lua" {
		e.runLua(src)
	} else {
		e.runStar(src)
	}
}

// exec runs src in lang and returns its error.
func (e *env) exec(lang, src string) error {
	if lang == "lua" {
		return e.execLua(context.Background(), src)
	}
	return e.execStar(context.Background(), src)
}

// lines is the print() output so far, as lines.
func (e *env) lines() []string {
	s := strings.TrimSuffix(e.out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func errDetail(err error) string {
	if se, ok := err.(*script.Error); ok {
		return se.Detail()
	}
	return err.Error()
}

// goTool registers a Go tool on the host's registry.
func (e *env) goTool(name string, fn func(ctx context.Context, args json.RawMessage) (any, error)) {
	e.t.Helper()
	// Read-only, so that the model's calls of it run without an approver.
	if err := e.ex.Registry().RegisterTools(core.Tool{Name: name, Description: "A Go tool.", ReadOnly: true, Func: fn}); err != nil {
		e.t.Fatal(err)
	}
}

// langs are the two script languages, by file extension.
var langs = []string{"star", "lua"}

// other is the language that is not lang.
func other(lang string) string {
	if lang == "lua" {
		return "star"
	}
	return "lua"
}

var (
	wantLines    = scripttest.WantLines
	wantContains = scripttest.WantContains
)

// wantErr checks that err is not nil and contains every one of subs.
func wantErr(t testing.TB, what string, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one containing %q", what, subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: error %q does not contain %q", what, err.Error(), s)
		}
	}
}

// fixed is a provider that always answers text.
func fixed(text string) provider.Provider {
	return provider.Func{Label: "fixed", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{Content: text}, nil
	}}
}
