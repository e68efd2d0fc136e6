package agentsh_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agentsh/agentsh"

// interpreters and terminal libraries: what the foundation must not import.
var (
	interpreters = []string{"go.starlark.net", "github.com/yuin/gopher-lua"}
	terminal     = []string{"github.com/peterh/liner"}
)

// TestDependencyDirection enforces DESIGN §1: core ← executor ← agent;
// tools and script depend on core/executor, never the reverse; core,
// executor, agent and tools import no interpreter and no terminal library;
// only cmd/agentsh imports liner; provider adapters import only core.
func TestDependencyDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; it lists the packages' dependencies")
	}
	out, err := exec.Command("go", "list", "-deps=false", "-f", "{{.ImportPath}}:{{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, list, _ := strings.Cut(line, ":")
		deps[strings.TrimPrefix(pkg, module)] = strings.Fields(list)
	}
	if len(deps) < 5 {
		t.Fatalf("go list found %d packages; want the whole module", len(deps))
	}
	forbidden := func(pkg string, prefixes ...string) {
		for _, d := range deps[pkg] {
			for _, p := range prefixes {
				if d == p || strings.HasPrefix(d, p+"/") {
					t.Errorf("%s imports %s (directly or not); DESIGN §1 forbids it", module+pkg, d)
				}
			}
		}
	}
	internal := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = module + n
		}
		return out
	}
	for pkg := range deps {
		switch {
		case pkg == "/core":
			forbidden(pkg, append(append(interpreters, terminal...), internal("/executor", "/agent", "/tools", "/script", "/stdlib", "/provider")...)...)
		case pkg == "/executor":
			forbidden(pkg, append(append(interpreters, terminal...), internal("/agent", "/tools", "/script", "/stdlib", "/provider")...)...)
		case pkg == "/agent" || strings.HasPrefix(pkg, "/agent/"):
			forbidden(pkg, append(append(interpreters, terminal...), internal("/tools", "/script")...)...)
		case pkg == "/tools" || strings.HasPrefix(pkg, "/tools/"):
			forbidden(pkg, append(append(interpreters, terminal...), internal("/agent", "/script")...)...)
		case pkg == "/provider" || strings.HasPrefix(pkg, "/provider/"):
			// Model adapters speak HTTP; they know nothing of the shell.
			forbidden(pkg, append(append(interpreters, terminal...), internal("/executor", "/agent", "/tools", "/script")...)...)
		case pkg == "/stdlib":
			// Script modules over plain Go values: script/ wires them in.
			forbidden(pkg, append(append(interpreters, terminal...), internal("/agent", "/tools", "/script")...)...)
		case pkg == "/script":
			// The host API is language-neutral: bindings live below it.
			forbidden(pkg, append(append(interpreters, terminal...), internal("/agent", "/tools")...)...)
		case pkg == "/cmd/agentsh":
		default:
			forbidden(pkg, terminal...)
		}
	}
}
