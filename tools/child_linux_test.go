package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/proctest"
	"github.com/agentsh/agentsh/tools"
)

// A tool call that could exhaust memory if a bound broke runs in a child
// process under an address-space limit (setrlimit), never in the test
// process: the "call" child runs calls (a JSON list on stdin) and prints
// their results as JSON, a line each.
func init() { children["call"] = childCall }

// childHeadroom is how much address space a child may add to what it has
// when it starts. Under the race detector the shadow memory of what the
// child allocates grows in 256 MiB steps on top, so it gets more: with
// 1 GiB a 64 MiB read could fail to map shadow memory (exit 66).
func childHeadroom() uint64 {
	if raceEnabled {
		return 4 << 30
	}
	return 1 << 30
}

// childDeadline guards every child: one that has not finished by then has
// hung, and is killed.
const childDeadline = 2 * time.Minute

// childResult is what the "call" child reports.
type childResult struct {
	OK     bool   `json:"ok"`
	Kind   string `json:"kind"`
	Err    string `json:"err"`
	Output string `json:"output"` // the first outputBytes of ForLLM
	Bytes  int    `json:"bytes"`  // the length of ForLLM
}

const outputBytes = 4096

func childCall() int {
	if err := proctest.LimitAddressSpace(childHeadroom()); err != nil {
		fmt.Fprintln(os.Stderr, "limit memory:", err)
		return 2
	}
	var calls []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&calls); err != nil {
		fmt.Fprintln(os.Stderr, "calls:", err)
		return 2
	}
	ex, err := childExecutor(os.Getenv("AGENTSH_TOOLS_TEST_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer ex.Close()
	enc := json.NewEncoder(os.Stdout) // one line per call, as each ends
	for _, call := range calls {
		res, _ := ex.InvokeTool(context.Background(), call.Tool, call.Args)
		out := childResult{OK: res.OK(), Kind: string(res.Kind()), Bytes: len(res.ForLLM)}
		out.Output = res.ForLLM[:min(len(res.ForLLM), outputBytes)]
		if res.Err != nil {
			out.Err = res.Err.Error()
		}
		enc.Encode(out)
	}
	return 0
}

func childExecutor(dir string) (*executor.Executor, error) {
	ex := executor.New(nil)
	if err := ex.Install(context.Background(), tools.NewExtension(tools.ExtensionConfig{WorkingDir: dir})); err != nil {
		return nil, fmt.Errorf("install tools: %v", err)
	}
	return ex, nil
}

// childCmd prepares the test binary to run as the named child.
func childCmd(ctx context.Context, name string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + name}, env...)...)
	return cmd
}

// toolCall is one call for a "call" child.
type toolCall struct {
	Tool string `json:"tool"`
	Args any    `json:"args"`
}

// callsInChild runs calls, in order, in dir in one "call" child and
// returns their results. A child that dies (out of memory, say) or hangs
// fails the test, naming the call it was running.
func callsInChild(t *testing.T, dir string, calls ...toolCall) []childResult {
	t.Helper()
	in, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	cmd := childCmd(ctx, "call", "AGENTSH_TOOLS_TEST_DIR="+dir)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var results []childResult
	dec := json.NewDecoder(&stdout)
	for {
		var res childResult
		if dec.Decode(&res) != nil {
			break
		}
		results = append(results, res)
	}
	if len(results) < len(calls) {
		c := calls[len(results)]
		what, _ := json.Marshal(c)
		switch {
		case ctx.Err() != nil:
			t.Fatalf("%.300s did not end within %v (it hangs)", what, childDeadline)
		case err != nil:
			t.Fatalf("%.300s: the child process failed (%v); its stderr begins:\n%s", what, err, head(stderr.String(), 1500))
		default:
			t.Fatalf("%.300s: no result from the child; its stdout: %q", what, head(stdout.String(), 500))
		}
	}
	return results
}

// callInChild runs one call as callsInChild does.
func callInChild(t *testing.T, dir, tool string, args any) childResult {
	t.Helper()
	return callsInChild(t, dir, toolCall{tool, args})[0]
}

// wantRefused fails unless res is a failed call whose message holds all
// of want.
func wantRefused(t *testing.T, what string, res childResult, want ...string) {
	t.Helper()
	if res.OK {
		t.Fatalf("%s succeeded with %d bytes of output (%.200q); want it refused", what, res.Bytes, res.Output)
	}
	if res.Kind != string(core.KindFailed) {
		t.Errorf("%s: kind %s, want %s (%s)", what, res.Kind, core.KindFailed, res.Err)
	}
	for _, w := range want {
		if !strings.Contains(res.Err, w) {
			t.Errorf("%s: message %q does not contain %q", what, res.Err, w)
		}
	}
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// readLine reads one line from a child's stdout, with the deadline.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := r.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("read from child: %v (got %q)", res.err, res.line)
		}
		return strings.TrimSuffix(res.line, "\n")
	case <-time.After(childDeadline):
		t.Fatalf("the child said nothing within %v", childDeadline)
	}
	return ""
}
