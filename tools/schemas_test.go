package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

// builtins returns the built-in tools, run_code with interpreted languages
// as well as the process ones.
func builtins(t testing.TB) []core.Tool {
	noop := func(context.Context, string) (string, error) { return "", nil }
	x := tools.NewExtension(tools.ExtensionConfig{WorkingDir: t.TempDir(),
		Runners: map[string]tools.CodeRunner{"starlark": noop, "lua": noop}})
	return x.Tools()
}

// TestBuiltinSchemasCompile: registration leaves compiling the built-in
// schemas to their first calls, so this compiles every one with the full
// validator, and checks that it agrees with the registered schema on a
// valid call and on calls that break each kind of rule.
func TestBuiltinSchemasCompile(t *testing.T) {
	list := builtins(t)
	if len(list) < 10 {
		t.Fatalf("%d built-in tools", len(list))
	}
	r := core.NewRegistry()
	if err := r.RegisterTools(list...); err != nil {
		t.Fatal(err)
	}
	for _, name := range r.ToolNames() {
		s := r.GetTool(name).Schema()
		if err := s.Compile(); err != nil {
			t.Errorf("%s: schema does not compile: %v\n%s", name, err, s.JSON())
			continue
		}
		var doc struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(s.JSON(), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if vs := s.Validate(json.RawMessage(`{"no_such_argument":1}`)); len(vs) == 0 || !strings.Contains(core.ViolationsText(vs), "additionalProperties 'no_such_argument' not allowed") {
			t.Errorf("%s: an unknown argument gives %v", name, vs)
		}
		if len(doc.Required) > 0 {
			vs := s.Validate(json.RawMessage(`{}`))
			if len(vs) != 1 || !strings.HasPrefix(vs[0].Message, "missing properties: ") {
				t.Errorf("%s: no arguments gives %v", name, vs)
			}
		}
		for prop := range doc.Properties {
			vs := s.Validate(json.RawMessage(`{"` + prop + `":{"not":"this"}}`))
			found := false
			for _, v := range vs {
				found = found || v.Pointer == "/"+prop && strings.HasPrefix(v.Message, "expected ")
			}
			if !found {
				t.Errorf("%s: an object for %s gives %v", name, prop, vs)
			}
		}
	}
}

// BenchmarkRegisterBuiltins: registering the built-in tools in a new
// registry, what every start of agentsh does.
func BenchmarkRegisterBuiltins(b *testing.B) {
	list := builtins(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := core.NewRegistry().RegisterTools(list...); err != nil {
			b.Fatal(err)
		}
	}
}
