package testrunner

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestRunLua runs passing, failing, skipping and broken Lua files and
// compares the whole report: the same format as Starlark's, with Lua
// positions and tracebacks.
func TestRunLua(t *testing.T) {
	report, sum, err := run(t, context.Background(), Options{}, "testdata/lua")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/lua.report")
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, report, string(want))
	if sum != (Summary{Passed: 8, Failed: 5, Skipped: 1}) {
		t.Errorf("summary %+v, want 8 passed, 5 failed, 1 skipped", sum)
	}
	if strings.Contains(report, "never runs") || strings.Contains(report, "not reached") {
		t.Error("a local function or the code after skip() ran")
	}
}
