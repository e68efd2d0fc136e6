package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func tool(name string) core.Tool {
	return core.Tool{Name: name, Func: func(context.Context, json.RawMessage) (any, error) { return name, nil }}
}

func names(r *core.Registry) string { return strings.Join(r.ToolNames(), ",") }

func TestToolNames(t *testing.T) {
	valid := []string{"a", "read_file", "mcp__server__tool", "A-Z_09", strings.Repeat("x", 64)}
	invalid := []string{"", "a.b", "mcp.tool", strings.Repeat("x", 65), "has space", "slash/name", "ünï", "abc\n", "\nabc", "tab\t", "a*"}
	for _, n := range valid {
		if !core.ValidToolName(n) {
			t.Errorf("ValidToolName(%q) = false", n)
		}
		if err := core.NewRegistry().RegisterTools(tool(n)); err != nil {
			t.Errorf("RegisterTools(%q): %v", n, err)
		}
	}
	for _, n := range invalid {
		if core.ValidToolName(n) {
			t.Errorf("ValidToolName(%q) = true", n)
		}
		err := core.NewRegistry().RegisterTools(tool(n))
		if err == nil {
			t.Errorf("RegisterTools(%q) accepted an invalid name", n)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", n)) {
			t.Errorf("error %q does not quote the name %q", err, n)
		}
	}
}

func TestRegisterRefusesMissingFunc(t *testing.T) {
	r := core.NewRegistry()
	if err := r.RegisterTools(core.Tool{Name: "nofunc"}); err == nil || !strings.Contains(err.Error(), "nofunc") {
		t.Fatalf("tool without Func: %v", err)
	}
}

func TestRegisterBadSchemaIsARegistrationError(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"type":"nope"}}}`,
		`{"type":"string"}`,
		`{"type":"object","minProperties":"x"}`,
		`[1]`,
		`{not json`,
		`{"$ref":"https://example.com/schema.json"}`,
	} {
		r := core.NewRegistry()
		x := tool("t")
		x.Parameters = json.RawMessage(schema)
		err := r.RegisterTools(x)
		if err == nil {
			t.Errorf("schema %s accepted at registration", schema)
			continue
		}
		if !strings.Contains(err.Error(), `"t"`) {
			t.Errorf("error %q does not name the tool", err)
		}
		if r.Len() != 0 || r.GetTool("t") != nil {
			t.Errorf("schema %s: tool registered despite the error", schema)
		}
	}
	// A good schema is compiled at registration and reachable.
	r := core.NewRegistry()
	x := tool("good")
	x.Parameters = json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	if err := r.RegisterTools(x); err != nil {
		t.Fatal(err)
	}
	if s := r.GetTool("good").Schema(); s == nil || string(s.JSON()) != string(x.Parameters) {
		t.Fatalf("registered tool has schema %v", s)
	}
	if x.Schema() != nil {
		t.Fatal("registration changed the caller's Tool value")
	}
	// No Parameters: any object.
	if err := r.RegisterTools(tool("plain")); err != nil {
		t.Fatal(err)
	}
	if vs := r.GetTool("plain").Schema().Validate(json.RawMessage(`{"anything":[1]}`)); vs != nil {
		t.Fatalf("default schema refused an object: %v", vs)
	}
}

func TestRegisterDuplicates(t *testing.T) {
	r := core.NewRegistry()
	if err := r.RegisterTools(tool("a"), tool("b")); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterTools(tool("a")); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("duplicate accepted or not named: %v", err)
	}
	if err := r.RegisterTools(tool("c"), tool("c")); err == nil {
		t.Fatal("a name repeated in one call accepted")
	}
	if err := r.ReplaceTools(tool("d"), tool("d")); err == nil {
		t.Fatal("ReplaceTools accepted a name repeated in one call")
	}
	if names(r) != "a,b" {
		t.Fatalf("tools %s", names(r))
	}
	// Replacement is explicit.
	repl := core.Tool{Name: "a", Description: "v2", Func: tool("a").Func}
	if err := r.ReplaceTools(repl, tool("e")); err != nil {
		t.Fatal(err)
	}
	if got := r.GetTool("a").Description; got != "v2" {
		t.Fatalf("ReplaceTools kept the old tool (%q)", got)
	}
	if names(r) != "a,b,e" {
		t.Fatalf("tools %s", names(r))
	}
}

func TestRegisterAllOrNothing(t *testing.T) {
	r := core.NewRegistry()
	if err := r.RegisterTools(tool("exists")); err != nil {
		t.Fatal(err)
	}
	bad := tool("bad")
	bad.Parameters = json.RawMessage(`{"type":"object","required":"x"}`)
	for name, batch := range map[string][]core.Tool{
		"invalid name last": {tool("new1"), tool("new2"), tool("bad.name")},
		"bad schema middle": {tool("new1"), bad, tool("new2")},
		"duplicate last":    {tool("new1"), tool("new2"), tool("exists")},
		"repeat in batch":   {tool("new1"), tool("new2"), tool("new1")},
		"no func":           {tool("new1"), {Name: "new2"}},
	} {
		if err := r.RegisterTools(batch...); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if got := names(r); got != "exists" {
			t.Fatalf("%s: a refused batch registered some tools: %s", name, got)
		}
	}
	if err := r.ReplaceTools(tool("exists"), tool("x.y")); err == nil || r.Len() != 1 {
		t.Fatalf("ReplaceTools with an invalid tool: %v, %d tools", err, r.Len())
	}
}

func TestRegisterCopiesTheTool(t *testing.T) {
	r := core.NewRegistry()
	x := tool("t")
	x.Before = []core.BeforeFunc{func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }}
	if err := r.RegisterTools(x); err != nil {
		t.Fatal(err)
	}
	x.Description = "changed later"
	x.Before[0] = nil
	x.Before = append(x.Before, nil)
	got := r.GetTool("t")
	if got.Description != "" || len(got.Before) != 1 || got.Before[0] == nil {
		t.Fatalf("later changes to the caller's Tool leaked into the registry: %+v", got)
	}
}

func TestUnregisterAllOrNothing(t *testing.T) {
	r := core.NewRegistry()
	if err := r.RegisterTools(tool("a"), tool("b"), tool("c")); err != nil {
		t.Fatal(err)
	}
	err := r.UnregisterTools("a", "ghost", "b", "phantom")
	if err == nil {
		t.Fatal("unknown names accepted")
	}
	if !strings.Contains(err.Error(), `"ghost"`) || !strings.Contains(err.Error(), `"phantom"`) || strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("error %q should list exactly the unknown names", err)
	}
	if names(r) != "a,b,c" {
		t.Fatalf("a refused unregister removed tools: %s", names(r))
	}
	if err := r.UnregisterTools("c", "a"); err != nil {
		t.Fatal(err)
	}
	if names(r) != "b" || r.GetTool("a") != nil || r.Len() != 1 {
		t.Fatalf("after unregister: %s", names(r))
	}
	if err := r.RegisterTools(tool("a")); err != nil {
		t.Fatalf("re-register after unregister: %v", err)
	}
}

func TestToolNamesSortedAndOwned(t *testing.T) {
	r := core.NewRegistry()
	if got := r.ToolNames(); len(got) != 0 {
		t.Fatalf("empty registry lists %q", got)
	}
	if err := r.RegisterTools(tool("zeta"), tool("Alpha"), tool("alpha"), tool("_x"), tool("b-2"), tool("b_1"), tool("10"), tool("9")); err != nil {
		t.Fatal(err)
	}
	want := "10,9,Alpha,_x,alpha,b-2,b_1,zeta" // byte-wise order
	if got := names(r); got != want {
		t.Fatalf("ToolNames = %s, want %s", got, want)
	}
	got := r.ToolNames()
	got[0] = "mutated"
	if names(r) != want {
		t.Fatal("ToolNames returned the registry's own slice")
	}
	if err := r.RegisterTools(tool("beta")); err != nil {
		t.Fatal(err)
	}
	if got := names(r); got != "10,9,Alpha,_x,alpha,b-2,b_1,beta,zeta" {
		t.Fatalf("ToolNames after a change = %s (stale cache?)", got)
	}
	// The zero Registry works too.
	var zero core.Registry
	if err := zero.RegisterTools(tool("z")); err != nil || zero.GetTool("z") == nil || names(&zero) != "z" {
		t.Fatalf("zero Registry: %v", err)
	}
}

// TestRegistryConcurrent is for the race detector.
func TestRegistryConcurrent(t *testing.T) {
	r := core.NewRegistry()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := fmt.Sprintf("t%d", w)
			for range 200 {
				_ = r.RegisterTools(tool(n))
				_ = r.ReplaceTools(tool(n))
				_ = r.ToolNames()
				if x := r.GetTool(n); x != nil && x.Name != n {
					t.Errorf("GetTool(%s) = %s", n, x.Name)
				}
				_ = r.Len()
				_ = r.UnregisterTools(n)
			}
		}()
	}
	wg.Wait()
	if r.Len() != 0 || len(r.ToolNames()) != 0 {
		t.Fatalf("left %d tools: %v", r.Len(), r.ToolNames())
	}
}

func TestRegistryOnChange(t *testing.T) {
	r := core.NewRegistry()
	var n int
	stop := r.OnChange(func() {
		// The registry is unlocked while watchers run.
		_ = r.ToolNames()
		n++
	})
	fn := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	if err := r.RegisterTools(core.Tool{Name: "a", Func: fn}); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterTools(core.Tool{Name: "a", Func: fn}); err == nil {
		t.Fatal("duplicate registered")
	}
	if err := r.ReplaceTools(core.Tool{Name: "a", Func: fn}); err != nil {
		t.Fatal(err)
	}
	if err := r.UnregisterTools("missing"); err == nil {
		t.Fatal("unknown name unregistered")
	}
	if err := r.UnregisterTools("a"); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("got %d change calls, want 3 (register, replace, unregister; none for the failures)", n)
	}
	stop()
	_ = r.RegisterTools(core.Tool{Name: "b", Func: fn})
	if n != 3 {
		t.Fatalf("got %d change calls after stop, want 3", n)
	}
}
