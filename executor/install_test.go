package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// ext is an extension that contributes whatever its fields hold and
// records Init and Close in a shared log.
type ext struct {
	name    string
	log     *recorder
	tools   []core.Tool
	before  []core.BeforeHook
	after   []core.AfterHook
	mws     []core.Middleware
	initErr error
}

func (x *ext) Name() string { return x.name }

// full implements every optional interface.
type full struct{ *ext }

func (x full) Tools() []core.Tool             { return x.tools }
func (x full) BeforeHooks() []core.BeforeHook { return x.before }
func (x full) AfterHooks() []core.AfterHook   { return x.after }
func (x full) Middleware() []core.Middleware  { return x.mws }
func (x full) SystemPrompt() string           { return "prompt of " + x.name }
func (x full) Init(ctx context.Context) error { x.log.add("init " + x.name); return x.initErr }
func (x full) Close() error                   { x.log.add("close " + x.name); return nil }

// toolsOnly contributes tools and nothing else (no Init, no Close).
type toolsOnly struct{ *ext }

func (x toolsOnly) Tools() []core.Tool { return x.tools }

// lifecycle has Init and Close (which fails) but contributes nothing.
type lifecycle struct{ *ext }

func (x lifecycle) Init(context.Context) error { x.log.add("init " + x.name); return x.initErr }
func (x lifecycle) Close() error {
	x.log.add("close " + x.name)
	return errors.New(x.name + " close error")
}

var (
	_ core.Extension          = full{}
	_ core.ToolProvider       = full{}
	_ core.BeforeHookProvider = full{}
	_ core.AfterHookProvider  = full{}
	_ core.MiddlewareProvider = full{}
	_ core.PromptProvider     = full{}
	_ core.Initializer        = full{}
	_ core.Closer             = full{}
)

func TestInstallRegistersContributions(t *testing.T) {
	var log recorder
	a := full{&ext{
		name:   "a",
		log:    &log,
		tools:  []core.Tool{okTool("a_tool")},
		before: []core.BeforeHook{{Name: "a-before", Func: log.beforeFunc("a before")}},
		after:  []core.AfterHook{{Name: "a-after", Func: log.afterFunc("a after")}},
		mws:    []core.Middleware{log.middleware("a mw")},
	}}
	b := toolsOnly{&ext{name: "b", log: &log, tools: []core.Tool{okTool("b_tool")}}}
	c := full{&ext{
		name:   "c",
		log:    &log,
		before: []core.BeforeHook{{Name: "c-before", Tools: []string{"b_*"}, Func: log.beforeFunc("c before (b only)")}},
		mws:    []core.Middleware{log.middleware("c mw")},
	}}
	exec := newExec(t, nil)
	if err := exec.Install(context.Background(), a, b, c); err != nil {
		t.Fatal(err)
	}
	if got := exec.Registry().ToolNames(); !equalStrings(got, []string{"a_tool", "b_tool"}) {
		t.Fatalf("tools %q", got)
	}
	if got := log.get(); !equalStrings(got, []string{"init a", "init c"}) {
		t.Fatalf("init order %q", got)
	}
	if xs := exec.Extensions(); len(xs) != 3 || xs[0].Name() != "a" || xs[2].Name() != "c" {
		t.Fatalf("Extensions() = %v", xs)
	}
	log.reset()
	if _, err := exec.InvokeTool(context.Background(), "b_tool", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"c before (b only)", "a before", "a mw enter", "c mw enter", "c mw exit", "a mw exit", "a after"}
	if got := log.get(); !equalStrings(got, want) {
		t.Fatalf("pipeline:\n got  %q\n want %q", got, want)
	}

	log.reset()
	if err := exec.Close(); err != nil {
		t.Fatal(err)
	}
	if got := log.get(); !equalStrings(got, []string{"close c", "close a"}) {
		t.Fatalf("close order %q, want reverse install order", got)
	}
	if len(exec.Extensions()) != 0 {
		t.Fatal("Close did not forget the extensions")
	}
	log.reset()
	if err := exec.Close(); err != nil || len(log.get()) != 0 {
		t.Fatalf("second Close closed again: %q, %v", log.get(), err)
	}
}

func TestInstallInitFailureRollsBack(t *testing.T) {
	var log recorder
	a := full{&ext{name: "a", log: &log, tools: []core.Tool{okTool("a_tool")},
		before: []core.BeforeHook{{Name: "a-before", Func: log.beforeFunc("WRONG: a before")}}}}
	b := lifecycle{&ext{name: "b", log: &log}}
	c := full{&ext{name: "c", log: &log, initErr: errors.New("no license")}}
	d := full{&ext{name: "d", log: &log, tools: []core.Tool{okTool("d_tool")}}}
	exec := newExec(t, []core.Tool{okTool("existing")})
	err := exec.Install(context.Background(), a, b, c, d)
	if err == nil {
		t.Fatal("Install succeeded although c's Init failed")
	}
	for _, s := range []string{"c", "no license", "b close error"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	want := []string{"init a", "init b", "init c", "close b", "close a"}
	if got := log.get(); !equalStrings(got, want) {
		t.Fatalf("lifecycle:\n got  %q\n want %q", got, want)
	}
	if got := exec.Registry().ToolNames(); !equalStrings(got, []string{"existing"}) {
		t.Fatalf("tools after a failed install: %q", got)
	}
	if len(exec.Extensions()) != 0 {
		t.Fatal("failed install left extensions behind")
	}
	log.reset()
	if _, err := exec.InvokeTool(context.Background(), "existing", nil); err != nil {
		t.Fatal(err)
	}
	if got := log.get(); len(got) != 0 {
		t.Fatalf("hooks of a failed install ran: %q", got)
	}
	if err := exec.Close(); err != nil || len(log.get()) != 0 {
		t.Fatalf("Close after a failed install closed %q (%v)", log.get(), err)
	}
}

func TestInstallToolFailureRollsBack(t *testing.T) {
	for name, tools := range map[string][]core.Tool{
		"duplicate of a registered tool": {okTool("existing")},
		"bad schema":                     {{Name: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nope"}}}`), Func: okTool("x").Func}},
		"bad name":                       {okTool("a.b")},
		"duplicate within the install":   {okTool("twice"), okTool("twice")},
	} {
		t.Run(name, func(t *testing.T) {
			var log recorder
			a := full{&ext{name: "a", log: &log, tools: []core.Tool{okTool("a_tool")},
				mws: []core.Middleware{log.middleware("WRONG: a mw")}}}
			b := full{&ext{name: "b", log: &log, tools: tools}}
			exec := newExec(t, []core.Tool{okTool("existing")})
			if err := exec.Install(context.Background(), a, b); err == nil {
				t.Fatal("Install succeeded")
			}
			want := []string{"init a", "init b", "close b", "close a"}
			if got := log.get(); !equalStrings(got, want) {
				t.Fatalf("lifecycle:\n got  %q\n want %q", got, want)
			}
			if got := exec.Registry().ToolNames(); !equalStrings(got, []string{"existing"}) {
				t.Fatalf("tools %q: a failed install registered some", got)
			}
			log.reset()
			exec.InvokeTool(context.Background(), "existing", nil)
			if got := log.get(); len(got) != 0 {
				t.Fatalf("middleware of a failed install ran: %q", got)
			}
		})
	}
}

func TestInstallMalformedHookRollsBack(t *testing.T) {
	var log recorder
	a := full{&ext{name: "a", log: &log, tools: []core.Tool{okTool("a_tool")},
		before: []core.BeforeHook{{Name: "nil-func"}}}}
	exec := newExec(t, nil)
	if err := exec.Install(context.Background(), a); err == nil {
		t.Fatal("hook without a function accepted")
	}
	if got := log.get(); !equalStrings(got, []string{"init a", "close a"}) {
		t.Fatalf("lifecycle %q", got)
	}
	if exec.Registry().Len() != 0 {
		t.Fatal("tools registered by a failed install")
	}
}

func TestCloseJoinsErrors(t *testing.T) {
	var log recorder
	exec := newExec(t, nil)
	must(t, exec.Install(context.Background(), lifecycle{&ext{name: "x", log: &log}}, lifecycle{&ext{name: "y", log: &log}}))
	err := exec.Close()
	if err == nil || !strings.Contains(err.Error(), "x close error") || !strings.Contains(err.Error(), "y close error") {
		t.Fatalf("Close error %v should report both", err)
	}
	if got := log.get(); !equalStrings(got, []string{"init x", "init y", "close y", "close x"}) {
		t.Fatalf("lifecycle %q", got)
	}
}
