package lua

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// exit(code) ends the run where it is called, with an error that carries
// the code through the script error; exit() is code 0.
func TestExit(t *testing.T) {
	for src, want := range map[string]int{
		"print('before')\nexit(3)\nprint('after')":          3,
		"print('before')\nexit()\nprint('after')":           0,
		"print('before')\nexit({code = 7})\nprint('after')": 7,
	} {
		e := newEnv(t, Options{})
		err := e.runErr(src)
		var ex *script.Exit
		if !errors.As(err, &ex) || ex.Code != want {
			t.Errorf("%q: error %v, want exit(%d)", src, err, want)
		}
		if got := strings.Join(e.lines(), "|"); got != "before" {
			t.Errorf("%q printed %q, want only before", src, got)
		}
	}
	e := newEnv(t, Options{})
	if err := e.runErr("exit(256)"); !strings.Contains(err.Error(), "exit: code got 256, want 0 to 255") {
		t.Errorf("exit(256): %v", err)
	}
	if err := e.runErr("exit('x')"); errors.As(err, new(*script.Exit)) {
		t.Errorf("exit('x') exits: %v", err)
	}
}

// help(name) prints a name's parameters and doc from its declaration.
func TestHelp(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`help("invoke_tool") help("json.encode") help("json") help("config") help()`)
	out := strings.Join(e.lines(), "\n")
	for _, want := range []string{
		"invoke_tool(name, args?, dedup_key?)\n  Runs one call through the pipeline and returns its result.",
		"json.encode(",
		"json: ",
		"config(key = value, ...)",
		"names: after, allow,",
		"modules: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help printed\n%s\nwant it to contain %q", out, want)
		}
	}
	err := e.runErr(`help("invoke_tol")`)
	if !strings.Contains(err.Error(), `help: no script name "invoke_tol"; did you mean "invoke_tool"?`) {
		t.Errorf("unknown name: %v", err)
	}
}

// ask(prompt) on a host without a model says so and names no flag of any
// program. (Lua raises a builtin's error as text, as pcall expects, so
// errors.Is does not find script.ErrNoModel here as it does in Starlark.)
func TestAskWithoutModel(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`ask("hi")`)
	if !strings.Contains(err.Error(), script.ErrNoModel.Error()) || strings.Contains(err.Error(), "--") {
		t.Errorf("ask without a model: %v", err)
	}
}
