package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/internal/otlptest"
)

// benchStart runs one whole command line in-process per iteration: the
// start-up of the CLI after the package initialisers (which
// GODEBUG=inittrace=1 measures).
func benchStart(b *testing.B, stdin string, args ...string) {
	b.ReportAllocs()
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := cli(args, stdio{in: bytes.NewReader([]byte(stdin)), out: &out, err: &errOut}); code != 0 {
			b.Fatalf("agentsh %q: exit %d: %s%s", args, code, out.String(), errOut.String())
		}
	}
}

// BenchmarkStartRunHello: agentsh run scripts/bench/hello.star.
func BenchmarkStartRunHello(b *testing.B) {
	benchStart(b, "", "run", filepath.Join(repoRoot(b), "scripts/bench/hello.star"))
}

// BenchmarkStartRunHelloLua: agentsh run scripts/bench/hello.lua.
func BenchmarkStartRunHelloLua(b *testing.B) {
	benchStart(b, "", "run", filepath.Join(repoRoot(b), "scripts/bench/hello.lua"))
}

// policyLoads is --load of every shipped policy, as scripts/bench/hook.sh
// loads them.
func policyLoads(b *testing.B) []string {
	files, err := filepath.Glob(filepath.Join(repoRoot(b), "scripts/policies/*.*"))
	if err != nil {
		b.Fatal(err)
	}
	var args []string
	for _, f := range files {
		if ext := filepath.Ext(f); (ext == ".star" || ext == ".lua") && !strings.Contains(filepath.Base(f), "_test.") {
			args = append(args, "--load", f)
		}
	}
	if len(args) == 0 {
		b.Fatal("no policies in scripts/policies")
	}
	return args
}

// BenchmarkStartHook: agentsh hook claude-code with every shipped policy,
// answering one PreToolUse event, as scripts/bench/hook.sh runs it.
func BenchmarkStartHook(b *testing.B) {
	args := append([]string{"hook", "claude-code"}, policyLoads(b)...)
	dir := b.TempDir()
	b.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	b.Chdir(dir)
	event := `{"session_id":"bench","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`
	benchStart(b, event, args...)
}

// BenchmarkStartHookTraced: BenchmarkStartHook exporting its span over
// OTLP/HTTP to a receiver on loopback, the exporter built and shut down
// (the span sent) in every iteration, as in every hook process.
func BenchmarkStartHookTraced(b *testing.B) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") || k == "TRACEPARENT" || k == "TRACESTATE" {
			b.Setenv(k, "")
		}
	}
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlptest.Start(b).HTTP)
	BenchmarkStartHook(b)
}

// BenchmarkStartExplain: agentsh explain of a read_file call with every
// shipped policy.
func BenchmarkStartExplain(b *testing.B) {
	args := append(append([]string{"explain"}, policyLoads(b)...), "read_file", `{"path":"README.md"}`)
	b.Chdir(b.TempDir())
	benchStart(b, "", args...)
}
