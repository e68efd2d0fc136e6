package lua

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRunSandboxedPrints(t *testing.T) {
	out, err := RunSandboxed(context.Background(), `print("hi", 1 + 2) print(string.upper("x"), math.floor(2.5), #table.concat({"a","b"}))`)
	if err != nil || out != "hi\t3\nX\t2\t2\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}

// Every removed function fails clearly; the io, os and debug libraries
// are absent.
func TestRunSandboxedRemovesDangerousGlobals(t *testing.T) {
	for _, name := range removedGlobals {
		_, err := RunSandboxed(context.Background(), name+`("/etc/passwd")`)
		if err == nil || !strings.Contains(err.Error(), name+" is not available in the agentsh sandbox") {
			t.Errorf("calling %s: %v", name, err)
		}
	}
	for _, name := range []string{"io", "os", "debug", "package"} {
		out, err := RunSandboxed(context.Background(), `print(type(`+name+`))`)
		if err != nil || out != "nil\n" {
			t.Errorf("%s: got %q, %v; want nil", name, out, err)
		}
	}
}

func TestRunSandboxedStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	out, err := RunSandboxed(ctx, `print("before") while true do end`)
	if !errors.Is(err, context.DeadlineExceeded) || out != "before\n" {
		t.Fatalf("runaway loop: %q, %v", out, err)
	}
	_, err = RunSandboxed(context.Background(), `local function f() return f() + 1 end f()`)
	if err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Errorf("unbounded recursion: %v", err)
	}
	_, err = RunSandboxed(context.Background(), `error("boom")`)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error(): %v", err)
	}
	_, err = RunSandboxed(context.Background(), `print(`)
	if err == nil {
		t.Error("syntax error accepted")
	}
}
