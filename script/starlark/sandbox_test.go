package starlark

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script"
)

func TestRunSandboxed(t *testing.T) {
	out, err := RunSandboxed(context.Background(), "print(json.encode({'b': 1, 'a': [1, 2]}))\nprint(re.findall(r'\\d+', 'a1b22'), math.floor(2.5))\n", 0)
	if err != nil || out != "{\"a\":[1,2],\"b\":1}\n[\"1\", \"22\"] 2\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	// No tool API, no state, no load.
	for _, src := range []string{`tool(name = "x", fn = print)`, `invoke_tool("read_file")`, `state.get("x")`, `config()`} {
		if _, err := RunSandboxed(context.Background(), src, 0); err == nil || !strings.Contains(err.Error(), "undefined") {
			t.Errorf("%s: %v; want undefined", src, err)
		}
	}
	if _, err := RunSandboxed(context.Background(), `load("x.star", "y")`, 0); err == nil {
		t.Error("load() worked in the sandbox")
	}
}

func TestRunSandboxedStops(t *testing.T) {
	out, err := RunSandboxed(context.Background(), "print('start')\nwhile True:\n    pass\n", 10000)
	if err == nil || !strings.Contains(err.Error(), "step budget exceeded") || out != "start\n" {
		t.Fatalf("step budget: %q, %v", out, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = RunSandboxed(ctx, "while True:\n    pass\n", 1<<62)
	var se *script.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("deadline: %v", err)
	}
	_, err = RunSandboxed(context.Background(), "1 // 0", 0)
	if err == nil || !strings.Contains(err.Error(), "<run_code>:1:3: floored division by zero") {
		t.Errorf("runtime error: %v", err)
	}
}

// re inside the sandbox stops with the context too, in the middle of one
// long search.
func TestRunSandboxedReStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := RunSandboxed(ctx, "re.findall('a{1,1000}b', 'a' * 2000000)\n", 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a search of minutes finished within its deadline")
		}
	case <-time.After(testwait.Bound(20 * time.Second)):
		t.Fatal("re.findall went on long after its deadline")
	}
}
