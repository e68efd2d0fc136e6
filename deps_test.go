package agentsh_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/agentsh/agentsh"

// Names in the rules: "/core" is the module's core package and the
// packages below it; a trailing slash, "/provider/", means only the
// packages below it; anything without a leading slash is another module.
var (
	interpreters = []string{"go.starlark.net", "github.com/yuin/gopher-lua"}
	terminal     = []string{"github.com/peterh/liner"}
	bindings     = []string{"/script/starlark", "/script/lua"}
	foundation   = []string{"/core", "/executor", "/agent", "/provider", "/tools"}
)

// rule is one line of the module's dependency direction (see
// TestDependencyDirection): the packages in from (minus except) do not
// depend on deny (minus allow).
type rule struct {
	name   string
	from   []string
	except []string
	deny   []string
	allow  []string
	// direct checks what the packages import themselves; otherwise every
	// package they depend on, however indirectly, counts.
	direct bool
	// pending are violations a change still under way removes: package →
	// the dependencies it may keep until then. They make the rule skip,
	// naming them; one that no longer occurs fails the test, so the list
	// only shrinks.
	pending map[string][]string
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var rules = []rule{
	{
		name: "core depends on nothing of agentsh above it",
		from: []string{"/core"},
		deny: []string{"/executor", "/agent", "/provider", "/tools", "/script", "/stdlib", "/cmd"},
	},
	{
		name: "executor depends on core (and telemetry's span names) only",
		from: []string{"/executor"},
		deny: []string{"/agent", "/provider", "/tools", "/script", "/stdlib", "/cmd"},
	},
	{
		name: "agent depends on core, executor and provider's vocabulary, never on a provider adapter",
		from: []string{"/agent"},
		deny: []string{"/provider/", "/tools", "/script", "/stdlib", "/cmd"},
	},
	{
		name: "provider adapters speak HTTP and know nothing of the shell",
		from: []string{"/provider"},
		deny: []string{"/executor", "/agent", "/tools", "/script", "/stdlib", "/cmd"},
	},
	{
		name: "tools depend on core and executor, never on agent, provider or script",
		from: []string{"/tools"},
		deny: []string{"/agent", "/provider", "/script", "/stdlib", "/cmd"},
	},
	{
		name: "the host API in script is language-neutral",
		from: []string{"script"},
		deny: join([]string{"/agent", "/provider", "/tools", "/cmd"}, bindings),
	},
	{
		name:  "stdlib imports nothing of agentsh but the Bash reader (bashcmd): script wires it in",
		from:  []string{"/stdlib"},
		deny:  []string{"/"},
		allow: []string{"/stdlib", "/bashcmd"},
	},
	{
		name: "the Bash reader (bashcmd) depends on nothing of agentsh",
		from: []string{"/bashcmd"},
		deny: []string{"/"},
	},
	{
		name: "core, executor, agent, provider, tools, script, stdlib and bashcmd import no interpreter and no terminal library",
		from: join(foundation, []string{"script", "/stdlib", "/bashcmd"}),
		deny: join(interpreters, terminal),
	},
	{
		name:   "only the bindings import an interpreter",
		from:   []string{"/"},
		except: bindings,
		deny:   interpreters,
		direct: true,
	},
	{
		name:   "only cmd/agentsh imports a terminal library",
		from:   []string{"/"},
		except: []string{"/cmd/agentsh"},
		deny:   terminal,
	},
	{
		name: "bindings meet only through script: starlark does not import lua",
		from: []string{"/script/starlark"},
		deny: []string{"/script/lua"},
	},
	{
		name: "bindings meet only through script: lua does not import starlark",
		from: []string{"/script/lua"},
		deny: []string{"/script/starlark"},
	},
	{
		name:   "only the default set (all) imports a binding, to register its language",
		from:   []string{"/"},
		except: join([]string{"/all"}, bindings),
		deny:   bindings,
		direct: true,
	},
	{
		name:   "the root package composes the shell and names no binding or provider adapter: they register by name",
		from:   []string{"."},
		deny:   join(bindings, []string{"/provider/", "/all"}),
		allow:  []string{"/provider/pricing", "/provider/internal"},
		direct: true,
	},
	{
		name:   "the tools (files, bash, grep, glob, fetch, run_code) do not link Chromium's driver: only tools/browser does",
		from:   []string{"/tools"},
		except: []string{"/tools/browser"},
		deny:   []string{"github.com/chromedp"},
	},
	{
		name:   "telemetry depends on core only",
		from:   []string{"/telemetry"},
		except: []string{"/telemetry/"},
		deny:   []string{"/"},
		allow:  []string{"/core", "/telemetry"},
		direct: true,
	},
	{
		name:   "the pipeline and the agent speak OpenTelemetry's API: its SDK, exporters and gRPC are a program's choice",
		from:   join(foundation, []string{"/telemetry", "."}),
		except: []string{"/telemetry/"},
		deny:   []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters", "google.golang.org/grpc"},
	},
	{
		name: "audit depends on core only: the executor and the hook adapters may write to it",
		from: []string{"/audit"},
		deny: []string{"/executor", "/agent", "/provider", "/tools", "/script", "/stdlib", "/cmd", "/hookadapter", "/durable"},
	},
	{
		name:   "only telemetry/otlpenv links OpenTelemetry's SDK and exporters (and the command, through it)",
		from:   []string{"/"},
		except: []string{"/telemetry/otlpenv", "/cmd/agentsh"},
		deny:   []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters"},
	},
}

// under reports whether pkg is named by pattern (see the names above).
// "script" alone is the package script, not the bindings below it; "."
// is the root package alone.
func under(pkg, pattern string) bool {
	switch {
	case pattern == "script":
		return pkg == "/script"
	case pattern == ".":
		return pkg == "/"
	case strings.HasSuffix(pattern, "/"):
		return strings.HasPrefix(pkg, pattern)
	}
	return pkg == pattern || strings.HasPrefix(pkg, pattern+"/")
}

func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

// graph is a module's packages (module-relative, "/core") with what each
// imports and depends on (ours module-relative too).
type graph map[string]struct{ imports, deps []string }

// check returns the rule's violations as "pkg -> dep", the pending ones
// apart, and whether any package falls under the rule.
func (r rule) check(g graph) (broken, pending []string, applies bool) {
	for pkg, p := range g {
		if !matches(pkg, r.from) || matches(pkg, r.except) {
			continue
		}
		applies = true
		deps := p.deps
		if r.direct {
			deps = p.imports
		}
		for _, d := range deps {
			if !matches(d, r.deny) || matches(d, r.allow) {
				continue
			}
			v := pkg + " -> " + d
			if matches(d, r.pending[pkg]) {
				pending = append(pending, v)
			} else {
				broken = append(broken, v)
			}
		}
	}
	sort.Strings(broken)
	sort.Strings(pending)
	return broken, pending, applies
}

// loadGraph lists the module's packages with go list; test files are not
// part of the layering.
func loadGraph(t *testing.T) graph {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; it lists the packages' dependencies")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	local := func(list string) []string {
		var out []string
		for _, p := range strings.Fields(list) {
			if p == module || strings.HasPrefix(p, module+"/") {
				p = "/" + strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			}
			out = append(out, p)
		}
		return out
	}
	g := graph{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		g[local(f[0])[0]] = struct{ imports, deps []string }{local(f[1]), local(f[2])}
	}
	for _, want := range []string{"/core", "/executor", "/agent", "/provider", "/tools", "/script", "/script/starlark", "/script/lua", "/stdlib", "/bashcmd", "/cmd/agentsh"} {
		if _, ok := g[want]; !ok {
			t.Fatalf("go list did not list %s%s; want the whole module", module, want)
		}
	}
	return g
}

// TestDependencyDirection enforces the module's dependency direction:
// core ← executor ← agent; tools and script build on core and executor,
// never the reverse; core, executor, agent, tools and script import no
// interpreter and no terminal library; only the bindings import an
// interpreter, and only cmd/agentsh a terminal library. Each entry of
// rules says one part of it.
func TestDependencyDirection(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			broken, pending, applies := r.check(g)
			if !applies {
				t.Fatalf("no package of the module falls under the rule (from %v)", r.from)
			}
			for _, v := range broken {
				t.Errorf("%s: the dependency direction forbids it", v)
			}
			var stale []string
			for pkg, deps := range r.pending {
				for _, d := range deps {
					if !occurs(pending, pkg+" -> ", d) {
						stale = append(stale, pkg+" -> "+d)
					}
				}
			}
			for _, v := range stale {
				t.Errorf("pending %s no longer occurs: remove it from the rule, which now holds for it", v)
			}
			if len(pending) > 0 && !t.Failed() {
				t.Skipf("rule %q is still broken by %s; it is enforced in full once those go", r.name, strings.Join(pending, ", "))
			}
		})
	}
}

// occurs reports whether vs holds a violation by pkg ("/x -> ") of a
// dependency under dep.
func occurs(vs []string, pkg, dep string) bool {
	for _, v := range vs {
		if d, ok := strings.CutPrefix(v, pkg); ok && under(d, dep) {
			return true
		}
	}
	return false
}

// TestRulesCatchViolations breaks every rule in a made-up module, so a
// rule that matches nothing (a typo in a prefix) cannot pass unnoticed.
func TestRulesCatchViolations(t *testing.T) {
	bad := map[string]string{ // rule name → a package and what it must not use
		rules[0].name:  "/core -> /executor",
		rules[1].name:  "/executor -> /tools/search",
		rules[2].name:  "/agent -> /provider/openai",
		rules[3].name:  "/provider/openai -> /agent",
		rules[4].name:  "/tools/web -> /script",
		rules[5].name:  "/script -> /script/lua",
		rules[6].name:  "/stdlib -> /tools",
		rules[7].name:  "/bashcmd -> /stdlib",
		rules[8].name:  "/bashcmd -> go.starlark.net",
		rules[9].name:  "/script/agentapi -> go.starlark.net/starlark",
		rules[10].name: "/script/testrunner -> github.com/peterh/liner",
		rules[11].name: "/script/starlark -> /script/lua/pattern",
		rules[12].name: "/script/lua -> /script/starlark",
		rules[13].name: "/cmd/agentsh -> /script/starlark",
		rules[14].name: "/ -> /provider/openai",
		rules[15].name: "/tools/web -> github.com/chromedp/cdproto/network",
		rules[16].name: "/telemetry -> /executor",
		rules[17].name: "/executor -> go.opentelemetry.io/otel/sdk/trace",
		rules[18].name: "/audit -> /executor",
		rules[19].name: "/hookadapter -> go.opentelemetry.io/otel/exporters/otlp/otlptrace",
	}
	if len(bad) != len(rules) {
		t.Fatalf("%d made-up violations for %d rules", len(bad), len(rules))
	}
	for _, r := range rules {
		v, ok := bad[r.name]
		if !ok {
			t.Errorf("rule %q: no made-up violation", r.name)
			continue
		}
		pkg, dep, _ := strings.Cut(v, " -> ")
		g := graph{pkg: {imports: []string{dep}, deps: []string{dep}}}
		if broken, _, _ := r.check(g); fmt.Sprint(broken) != "["+v+"]" {
			t.Errorf("rule %q: found %v in a module where %s, want exactly that", r.name, broken, v)
		}
	}
	// What the rules allow.
	for _, ok := range []string{
		"/agent -> /provider",
		"/stdlib/json -> /stdlib",
		"/script/starlark -> /script",
		"/all -> /script/lua",
		"/cmd/agentsh -> /all",
		"/ -> /provider",
		"/ -> /provider/pricing",
		"/ -> /script/agentapi",
		"/cmd/agentsh -> github.com/peterh/liner",
		"/script/starlark -> go.starlark.net/starlark",
		"/script/lua/pattern -> github.com/yuin/gopher-lua",
		"/tools -> /executor",
		"/tools/process -> /bashcmd",
		"/stdlib -> /bashcmd",
		"/bashcmd -> mvdan.cc/sh/v3/syntax",
		"/tools/browser -> github.com/chromedp/chromedp",
		"/tools/browser -> /tools",
	} {
		pkg, dep, _ := strings.Cut(ok, " -> ")
		g := graph{pkg: {imports: []string{dep}, deps: []string{dep}}}
		for _, r := range rules {
			if broken, _, _ := r.check(g); len(broken) > 0 {
				t.Errorf("rule %q forbids %s, which the dependency direction allows", r.name, ok)
			}
		}
	}
}

// The command is a thin client of this package: flags → Config → New,
// and the terminal (REPL, prompts, display). These bounds keep it so.
const (
	// The module's packages cmd/agentsh imports: 8 until traces, whose
	// exporters (telemetry/otlpenv) stay out of package agentsh so that a
	// program that embeds the shell does not link them.
	maxCLIImports = 9
	// Its non-test Go lines, blank lines and comments aside: 2,600 until
	// the six commands of durable runs (run --durable, resume, runs,
	// approvals, approve and deny, batch) added their flags and dispatch;
	// 2,900 until --audit FILE (on run, -c, call, ask, the REPL, hook and
	// mcp serve), agentsh audit verify and agentsh policy diff; 3,045 with
	// traces: each command's root span, and the exporter built once per
	// process and shut down at exit.
	maxCLICodeLines = 3045
)

func TestCLIIsThin(t *testing.T) {
	g := loadGraph(t)
	var ours []string
	for _, p := range g["/cmd/agentsh"].imports {
		if strings.HasPrefix(p, "/") {
			ours = append(ours, p)
		}
	}
	if len(ours) > maxCLIImports {
		t.Errorf("cmd/agentsh imports %d of the module's packages, want at most %d: %v; move what composes the shell into package agentsh", len(ours), maxCLIImports, ours)
	}
	files, err := filepath.Glob(filepath.Join("cmd", "agentsh", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
				lines++
			}
		}
	}
	if lines > maxCLICodeLines {
		t.Errorf("cmd/agentsh holds %d lines of code, want at most %d; move what composes the shell into package agentsh", lines, maxCLICodeLines)
	}
	t.Logf("cmd/agentsh: %d lines of code, %d of the module's packages imported", lines, len(ours))
}
