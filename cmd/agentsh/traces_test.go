package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsh/agentsh/internal/jaegertest"
	"github.com/agentsh/agentsh/internal/otlptest"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// tracesExample is the worked example of docs/observability.md's Traces
// section: the files it shows, the agentsh command line and its output.
type tracesExample struct {
	files map[string]string
	argv  []string
	out   string
	// guardLine is the line of policy.star that defines the hook that
	// denies: the decision's source.
	guardLine int
	// doc is the page's Traces section, for the messages it quotes, and
	// offset the page's line before it.
	doc    string
	offset int
	// tree is the trace the page shows, span by span: its name and the
	// attributes it shows.
	tree []docSpan
}

type docSpan struct {
	name  string
	attrs map[string]string
}

// parseTree reads the page's drawing of a trace: a span's name in the
// first column (after the tree's lines), then its attributes as
// key=value, two spaces apart, on that line and those below it.
func parseTree(text string) []docSpan {
	var out []docSpan
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		l = strings.TrimLeft(l, "├└│─ ")
		name, rest, _ := strings.Cut(l, "  ")
		if strings.Contains(name, "=") {
			name, rest = "", l
		} else {
			out = append(out, docSpan{name: name, attrs: map[string]string{}})
		}
		for _, f := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(rest), -1) {
			if k, v, ok := strings.Cut(f, "="); ok && len(out) > 0 {
				out[len(out)-1].attrs[k] = v
			}
		}
	}
	return out
}

func readTracesExample(t *testing.T) tracesExample {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "observability.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The Traces section alone: the other sections show files of the
	// same names.
	before, section, _ := strings.Cut(string(b), "\n## Traces\n")
	section, _, _ = strings.Cut(section, "\n## ")
	ex := tracesExample{files: map[string]string{}, doc: section, offset: strings.Count(before, "\n") + 2}
	blocks := docBlocks(ex.doc)
	for i, blk := range blocks {
		if blk.name != "" {
			ex.files[blk.name] = blk.text
		}
		if blk.lang == "" && strings.HasPrefix(blk.text, "agentsh run ") && ex.tree == nil {
			ex.tree = parseTree(blk.text)
		}
		if blk.lang == "sh" && ex.argv == nil {
			for _, l := range strings.Split(blk.text, "\n") {
				if strings.HasPrefix(l, "agentsh ") && strings.Contains(l, " run ") && i+1 < len(blocks) {
					ex.argv, ex.out = strings.Fields(l), blocks[i+1].text
				}
			}
		}
	}
	for i, l := range strings.Split(ex.files["policy.star"], "\n") {
		if strings.HasPrefix(l, "def guard(") {
			ex.guardLine = i + 1
		}
	}
	if ex.files["policy.star"] == "" || ex.files["task.star"] == "" || ex.argv == nil || ex.guardLine == 0 || len(ex.tree) != 3 {
		t.Fatalf("docs/observability.md: want policy.star (with def guard), task.star, an agentsh ... run line followed by its output, and the trace of the run and its two calls; found files %v, command %q, trace %v",
			slices.Sorted(maps.Keys(ex.files)), ex.argv, ex.tree)
	}
	return ex
}

// command returns agentsh running the example's command line in a
// directory with its files, exporting to endpoint; env adds variables.
func (ex tracesExample) command(t *testing.T, endpoint string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := tracedCmd(t, endpoint, ex.argv[1:]...)
	for name, text := range ex.files {
		if err := os.WriteFile(filepath.Join(cmd.Dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// tracedCmd is agentsh (this test binary) exporting to endpoint, with
// no other OTEL_ variable of the machine's.
func tracedCmd(t *testing.T, endpoint string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := agentshCmd(t, args...)
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "TRACEPARENT=") && !strings.HasPrefix(kv, "TRACESTATE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint)
	return cmd
}

// TestTracesToJaeger runs the worked example of docs/observability.md
// against Jaeger, over OTLP/HTTP and over gRPC, and reads the trace back
// from Jaeger's API: the run is the root, each call a child of it, and
// the denied call's span names the hook that denied it, where it is
// defined and why.
func TestTracesToJaeger(t *testing.T) {
	t.Parallel()
	ex := readTracesExample(t)
	j := jaegertest.Start(t)
	for _, tc := range []struct{ protocol, endpoint string }{
		{"http/protobuf", j.OTLPHTTP},
		{"grpc", j.OTLPGRPC},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			cmd := ex.command(t, tc.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL="+tc.protocol,
				"OTEL_RESOURCE_ATTRIBUTES=test.protocol="+tc.protocol)
			out, err := cmd.CombinedOutput()
			if code := exitCode(t, err); code != 0 || string(out) != ex.out {
				t.Fatalf("%s: exit %d, output:\n%s\nthe page shows:\n%s", strings.Join(ex.argv, " "), code, out, ex.out)
			}
			var trace *jaegertest.Trace
			for _, tr := range j.Traces(t, "agentsh", "execute_tool write_file") {
				for _, p := range tr.Processes {
					for _, kv := range p.Tags {
						if kv.Key == "test.protocol" && kv.Value == tc.protocol {
							trace = &tr
						}
					}
				}
			}
			if trace == nil {
				t.Fatalf("jaeger has no trace of the run over %s", tc.protocol)
			}
			var root *jaegertest.Span
			var tools []jaegertest.Span
			for i, s := range trace.Spans {
				switch s.OperationName {
				case "agentsh run":
					root = &trace.Spans[i]
				case "execute_tool write_file":
					tools = append(tools, s)
				}
			}
			if root == nil || len(tools) != 2 {
				t.Fatalf("trace %+v: want agentsh run and two execute_tool write_file", trace.Spans)
			}
			if root.Parent() != "" || root.Tag("agentsh.command") != "run" || root.Tag("agentsh.script") != "task.star" ||
				root.Tag("process.exit.code") != float64(0) {
				t.Errorf("root span %+v: want no parent, agentsh.command run, agentsh.script task.star, process.exit.code 0", *root)
			}
			var denied *jaegertest.Span
			for i, s := range tools {
				if s.Parent() != root.SpanID {
					t.Errorf("execute_tool span %s has parent %q, want the run %s", s.SpanID, s.Parent(), root.SpanID)
				}
				if s.Tag("agentsh.decision.verdict") == "deny" {
					denied = &tools[i]
				} else if s.Tag("agentsh.decision.verdict") != "allow" || s.Tag("agentsh.outcome") != "ok" {
					t.Errorf("the allowed call's span %+v: want verdict allow, outcome ok", s.Tags)
				}
			}
			if denied == nil {
				t.Fatalf("no execute_tool span with agentsh.decision.verdict deny: %+v", tools)
			}
			// The trace the page draws is the one Jaeger has.
			for _, ds := range ex.tree {
				var js *jaegertest.Span
				for i, s := range trace.Spans {
					if s.OperationName == ds.name && fmt.Sprint(s.Tag("agentsh.decision.verdict")) == fmt.Sprint(ds.attrs["agentsh.decision.verdict"]) ||
						s.OperationName == ds.name && ds.name == "agentsh run" {
						js = &trace.Spans[i]
					}
				}
				if js == nil {
					t.Errorf("the page shows a span %s %v that jaeger does not have", ds.name, ds.attrs)
					continue
				}
				for k, v := range ds.attrs {
					if got := fmt.Sprint(js.Tag(k)); got != v {
						t.Errorf("the page shows %s with %s=%s; jaeger has %s", ds.name, k, v, got)
					}
				}
			}
			want := map[string]any{
				"agentsh.decision.hook":   "guard",
				"agentsh.decision.source": "policy.star:" + strconv.Itoa(ex.guardLine),
				"agentsh.decision.reason": "writes go under notes/",
				"agentsh.outcome":         "rejected",
				"agentsh.call.origin":     "person",
				"gen_ai.tool.name":        "write_file",
			}
			for k, v := range want {
				if got := denied.Tag(k); got != v {
					t.Errorf("the denied call's %s = %v, want %v", k, got, v)
				}
			}
		})
	}
}

// TestTracesEndWithTheProcess: the last spans reach the collector on
// every way a run ends — an error exit and a signal — and a collector
// that never answers holds the exit back only by the shutdown's bound
// (with the exporter's own timeout an hour), saying so on stderr as
// docs/observability.md shows.
func TestTracesEndWithTheProcess(t *testing.T) {
	t.Parallel()
	ex := readTracesExample(t)
	t.Run("error exit", func(t *testing.T) {
		t.Parallel()
		rcv := otlptest.Start(t)
		cmd := tracedCmd(t, rcv.HTTP, "-c", `invoke_tool("nope", {})
fail("boom")`)
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code != 1 {
			t.Fatalf("exit %d, want 1; output:\n%s", code, out)
		}
		spans := rcv.Spans() // the process has exited: everything is in
		root, tool := span(t, spans, "agentsh run"), span(t, spans, "execute_tool nope")
		if root.Attrs["process.exit.code"] != int64(1) || !root.Failed || root.Attrs["agentsh.script"] != "<command-line>" {
			t.Errorf("root span %+v: want process.exit.code 1, an error status, agentsh.script <command-line>", root)
		}
		if tool.ParentID != root.SpanID || tool.Attrs["agentsh.outcome"] != "unknown_tool" {
			t.Errorf("tool span %+v: want a child of the run, outcome unknown_tool", tool)
		}
	})
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		rcv := otlptest.Start(t)
		cmd := tracedCmd(t, rcv.HTTP, "-c", `invoke_tool("bash", {"command": "touch started && sleep 600"})`)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "the call to start", func() bool {
			_, err := os.Stat(filepath.Join(cmd.Dir, "started"))
			return err == nil
		})
		cmd.Process.Signal(syscall.SIGTERM)
		var werr error
		testwait.Within(t, "agentsh to exit on SIGTERM", func() { werr = cmd.Wait() })
		if code := exitCode(t, werr); code != 143 {
			t.Fatalf("exit %d, want 143; output:\n%s", code, &out)
		}
		spans := rcv.Spans()
		root, tool := span(t, spans, "agentsh run"), span(t, spans, "execute_tool bash")
		if root.Attrs["process.exit.code"] != int64(143) || tool.ParentID != root.SpanID || tool.Attrs["agentsh.outcome"] != "canceled" {
			t.Errorf("root %+v\ntool %+v\nwant exit code 143 and the canceled call under it", root, tool)
		}
	})
	t.Run("collector hangs", func(t *testing.T) {
		t.Parallel()
		endpoint := otlptest.Blackhole(t)
		cmd := tracedCmd(t, endpoint, "-c", `fail("boom")`)
		cmd.Env = append(cmd.Env, "OTEL_EXPORTER_OTLP_TIMEOUT=3600000")
		var out []byte
		var err error
		testwait.Within(t, "agentsh to exit with a collector that hangs", func() { out, err = cmd.CombinedOutput() })
		if code := exitCode(t, err); code != 1 {
			t.Fatalf("exit %d, want 1; output:\n%s", code, out)
		}
		want := docLine(t, ex.doc, "agentsh: traces: spans not delivered")
		want = strings.ReplaceAll(want, "http://localhost:4318", endpoint)
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("output:\n%s\nwant the line the page shows:\n%s", out, want)
		}
	})
	t.Run("bad endpoint", func(t *testing.T) {
		t.Parallel()
		cmd := tracedCmd(t, "localhost:4318", "-c", `print("ran")`)
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code != 2 || string(out) != docLine(t, ex.doc, "agentsh: OTEL_EXPORTER_OTLP_ENDPOINT=")+"\n" {
			t.Errorf("exit %d, output:\n%s\nwant exit 2 and the line the page shows, nothing run", code, out)
		}
	})
	t.Run("bad protocol --json", func(t *testing.T) {
		t.Parallel()
		cmd := tracedCmd(t, "http://127.0.0.1:4318", "--json", "-c", `print("ran")`)
		cmd.Env = append(cmd.Env, "OTEL_EXPORTER_OTLP_PROTOCOL=thrift")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitCode(t, cmd.Run())
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], `"message":"OTEL_EXPORTER_OTLP_PROTOCOL=thrift: want http/protobuf`) ||
			!strings.Contains(lines[1], `"event":"result"`) || stderr.Len() != 0 {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 2, an error event naming the variable and a result event", code, &stdout, &stderr)
		}
	})
}

// TestTracesOfHook: agentsh hook decides a call another agent runs; its
// span carries the decision.
func TestTracesOfHook(t *testing.T) {
	t.Parallel()
	ex := readTracesExample(t)
	rcv := otlptest.Start(t)
	cmd := tracedCmd(t, rcv.GRPC, "hook", "claude-code", "--load", "policy.star")
	cmd.Env = append(cmd.Env, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
	if err := os.WriteFile(filepath.Join(cmd.Dir, "policy.star"), []byte(ex.files["policy.star"]), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":` + strconv.Quote(cmd.Dir) +
		`,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":` + strconv.Quote(filepath.Join(cmd.Dir, "README.md")) + `,"content":"x"}}`)
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code != 0 || !strings.Contains(string(out), `"permissionDecision":"deny"`) {
		t.Fatalf("exit %d, output:\n%s\nwant Claude Code's deny", code, out)
	}
	s := span(t, rcv.Spans(), "agentsh hook claude-code")
	want := map[string]any{
		"agentsh.command":          "hook",
		"agentsh.hook.event":       "PreToolUse",
		"gen_ai.tool.name":         "write_file",
		"agentsh.call.origin":      "hook",
		"agentsh.decision.verdict": "deny",
		"agentsh.decision.hook":    "guard",
		"agentsh.decision.source":  "policy.star:" + strconv.Itoa(ex.guardLine),
		"agentsh.decision.reason":  "writes go under notes/",
		"process.exit.code":        int64(0),
	}
	for k, v := range want {
		if got := s.Attrs[k]; got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if s.ParentID != "" {
		t.Errorf("the hook's span has parent %s, want none", s.ParentID)
	}
}

func span(t *testing.T, spans []otlptest.Span, name string) otlptest.Span {
	t.Helper()
	var names []string
	for _, s := range spans {
		if s.Name == name {
			return s
		}
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q among %q", name, names)
	return otlptest.Span{}
}

// docLine is the line of doc that starts with prefix.
func docLine(t *testing.T, doc, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("docs/observability.md has no line starting %q", prefix)
	return ""
}

// TestTracesDocCommands: the command lines of docs/observability.md's
// Traces section that the tests do not run are ones that work: agentsh
// accepts its command lines, the variables it exports are ones agentsh
// takes, and Jaeger builds from the module it names, as .ci/run builds it.
func TestTracesDocCommands(t *testing.T) {
	ex := readTracesExample(t)
	root := repoRoot(t)
	var agentshLines, exports, builds int
	for _, blk := range docBlocks(ex.doc) {
		if blk.lang != "sh" {
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(blk.text), "\n") {
			switch {
			case strings.HasPrefix(l, "agentsh "):
				agentshLines++
				if _, err := parseArgs(strings.Fields(l)[1:]); err != nil {
					t.Errorf("docs/observability.md:%d: %s: agentsh refuses it: %v", ex.offset+blk.line, l, err)
				}
			case strings.HasPrefix(l, "export OTEL_"):
				exports++
				name, value, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
				s, err := otlpenv.Check(func(k string) string {
					if k == name {
						return value
					}
					return ""
				})
				if err != nil || !s.On {
					t.Errorf("docs/observability.md:%d: %s: traces on %v, %v; want them on", ex.offset+blk.line, l, s.On, err)
				}
			case strings.Contains(l, "go build"):
				builds++
				dir := regexp.MustCompile(`cd (\S+) &&`).FindStringSubmatch(l)
				pkg := regexp.MustCompile(`go build -o \S+ (\S+?)\)?$`).FindStringSubmatch(l)
				if dir == nil || pkg == nil {
					t.Errorf("docs/observability.md:%d: %s: want (cd DIR && go build -o BIN PKG)", ex.offset+blk.line, l)
					continue
				}
				mod, err := os.ReadFile(filepath.Join(root, dir[1], "go.mod"))
				if err != nil || !strings.Contains(string(mod), "\ntool "+pkg[1]+"\n") {
					t.Errorf("docs/observability.md:%d: %s: %s/go.mod does not require %s as a tool (%v)", ex.offset+blk.line, l, dir[1], pkg[1], err)
				}
				ci, _ := os.ReadFile(filepath.Join(root, ".ci", "run"))
				if !strings.Contains(string(ci), "cd "+dir[1]+" && go build") || !strings.Contains(string(ci), pkg[1]) {
					t.Errorf("docs/observability.md:%d: %s: .ci/run builds Jaeger otherwise", ex.offset+blk.line, l)
				}
			}
		}
	}
	if agentshLines == 0 || exports == 0 || builds == 0 {
		t.Errorf("docs/observability.md: %d agentsh command lines, %d exports, %d builds of Jaeger; the test no longer sees the example", agentshLines, exports, builds)
	}
}

// TestTracesWithoutCommandSpan: the REPL has no span of its own, so each
// call is a trace of its own; a durable run's execution is a span with the
// run's id, its calls under it.
func TestTracesWithoutCommandSpan(t *testing.T) {
	t.Parallel()
	t.Run("repl", func(t *testing.T) {
		t.Parallel()
		rcv := otlptest.Start(t)
		cmd := tracedCmd(t, rcv.HTTP, "-i")
		cmd.Stdin = strings.NewReader("invoke_tool(\"list_dir\", {})\ninvoke_tool(\"list_dir\", {})\n")
		if out, err := cmd.CombinedOutput(); exitCode(t, err) != 0 {
			t.Fatalf("agentsh -i: %v\n%s", err, out)
		}
		var calls []otlptest.Span
		for _, s := range rcv.Spans() {
			if s.Name != "execute_tool list_dir" {
				t.Errorf("span %q in the REPL, want only its calls", s.Name)
			}
			calls = append(calls, s)
		}
		if len(calls) != 2 || calls[0].ParentID != "" || calls[1].ParentID != "" || calls[0].TraceID == calls[1].TraceID {
			t.Errorf("spans %+v: want two calls, each the root of its own trace", calls)
		}
	})
	t.Run("durable", func(t *testing.T) {
		t.Parallel()
		rcv := otlptest.Start(t)
		cmd := tracedCmd(t, rcv.HTTP, "run", "--durable", "--run-id", "traced-1", "task.star")
		if err := os.WriteFile(filepath.Join(cmd.Dir, "task.star"), []byte(`invoke_tool("list_dir", {})`), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); exitCode(t, err) != 0 {
			t.Fatalf("agentsh run --durable: %v\n%s", err, out)
		}
		spans := rcv.Spans()
		run, call := span(t, spans, "agentsh run"), span(t, spans, "execute_tool list_dir")
		if run.ParentID != "" || run.Attrs["agentsh.run.id"] != "traced-1" || call.ParentID != run.SpanID {
			t.Errorf("run %+v\ncall %+v\nwant the execution with its run id at the root, the call under it", run, call)
		}
	})
}

// TestTracesUnderACIJob: a CI job that traces itself names its span in
// TRACEPARENT; agentsh's command span is its child.
func TestTracesUnderACIJob(t *testing.T) {
	t.Parallel()
	rcv := otlptest.Start(t)
	cmd := tracedCmd(t, rcv.HTTP, "-c", `invoke_tool("list_dir", {})`)
	cmd.Env = append(cmd.Env, "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if out, err := cmd.CombinedOutput(); exitCode(t, err) != 0 {
		t.Fatalf("agentsh -c: %v\n%s", err, out)
	}
	spans := rcv.Spans()
	run, call := span(t, spans, "agentsh run"), span(t, spans, "execute_tool list_dir")
	if run.TraceID != "0af7651916cd43dd8448eb211c80319c" || run.ParentID != "b7ad6b7169203331" || call.ParentID != run.SpanID {
		t.Errorf("run %+v\ncall %+v\nwant the run under the job's span, the call under the run", run, call)
	}
}
