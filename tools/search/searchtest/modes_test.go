package searchtest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/search/searchtest"
)

// ignoresMode searches as if every request were ModeContent.
type ignoresMode struct{ *search.Native }

func (b ignoresMode) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	req.Mode = search.ModeContent
	return b.Native.Grep(ctx, req, emit)
}

// filesWithCounts reports real counts in ModeFiles.
type filesWithCounts struct{ *search.Native }

func (b filesWithCounts) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	files := req.Mode == search.ModeFiles
	if files {
		req.Mode = search.ModeCount
	}
	return b.Native.Grep(ctx, req, emit)
}

// limitHalves stops at half the Limit, as if Limit were a cap on work.
type limitHalves struct{ *search.Native }

func (b limitHalves) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	n := 0
	return b.Native.Grep(ctx, req, func(r search.FileResult) bool {
		n++
		return emit(r) && (req.Limit < 2 || n < req.Limit/2)
	})
}

// TestBrokenModeBackend runs the suite on one broken backend when
// TestSuiteFindsBrokenModeBackends asks for it.
func TestBrokenModeBackend(t *testing.T) {
	variant := os.Getenv("SEARCHTEST_BROKEN_MODE")
	if variant == "" {
		t.Skip("run by TestSuiteFindsBrokenModeBackends")
	}
	switch variant {
	case "ignoresmode":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return ignoresMode{search.NewNative(root)} })
	case "fileswithcounts":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return filesWithCounts{search.NewNative(root)} })
	case "limithalves":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return limitHalves{search.NewNative(root)} })
	}
}

// TestSuiteFindsBrokenModeBackends checks that the suite fails, in the
// right places, for backends that get Mode or Limit wrong.
func TestSuiteFindsBrokenModeBackends(t *testing.T) {
	if os.Getenv("SEARCHTEST_BROKEN_MODE") != "" {
		t.Skip()
	}
	cases := map[string][]string{
		"ignoresmode":     {"--- FAIL: TestBrokenModeBackend/Modes", "ModeFiles", "ModeCount"},
		"fileswithcounts": {"--- FAIL: TestBrokenModeBackend/Modes", "ModeFiles"},
		"limithalves":     {"--- FAIL: TestBrokenModeBackend/LimitHint", "Limit 16"},
	}
	for variant, want := range cases {
		t.Run(variant, func(t *testing.T) {
			t.Parallel() // each variant is a process of its own
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenModeBackend$", "-test.v")
			cmd.Env = append(os.Environ(), "SEARCHTEST_BROKEN_MODE="+variant)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a backend that %s:\n%s", variant, out)
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%.3000s", w, out)
				}
			}
			if variant != "ignoresmode" && strings.Contains(string(out), "--- FAIL: TestBrokenModeBackend/Order") {
				t.Errorf("a check other than the mode checks failed:\n%.3000s", out)
			}
		})
	}
}
