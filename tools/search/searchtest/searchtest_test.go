package searchtest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/search/searchtest"
)

// broken backends, each wrong in one way the suite must notice.
type reversed struct{ *search.Native }

func (b reversed) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	var all []search.FileResult
	err := b.Native.Grep(ctx, req, func(r search.FileResult) bool { all = append(all, r); return true })
	slices.Reverse(all)
	for _, r := range all {
		if !emit(r) {
			break
		}
	}
	return err
}

func (b reversed) Glob(ctx context.Context, req search.GlobRequest, emit func(string) bool) error {
	var all []string
	err := b.Native.Glob(ctx, req, func(p string) bool { all = append(all, p); return true })
	slices.Reverse(all)
	for _, p := range all {
		if !emit(p) {
			break
		}
	}
	return err
}

type noStop struct{ *search.Native }

func (b noStop) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	return b.Native.Grep(ctx, req, func(r search.FileResult) bool { emit(r); return true })
}

type quietErrors struct{ *search.Native }

func (b quietErrors) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	b.Native.Grep(ctx, req, emit)
	return nil
}

type noContext struct{ *search.Native }

func (b noContext) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	req.Before, req.After = 0, 0
	return b.Native.Grep(ctx, req, emit)
}

type alwaysHidden struct{ *search.Native }

func (b alwaysHidden) Glob(ctx context.Context, req search.GlobRequest, emit func(string) bool) error {
	req.Hidden = true
	return b.Native.Glob(ctx, req, emit)
}

// rawLines reports lines other than by the rule for long lines: whole,
// or cut at MaxLineBytes bytes even inside a character.
type rawLines struct {
	*search.Native
	root  string
	bytes bool
}

func (b rawLines) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	return b.Native.Grep(ctx, req, func(r search.FileResult) bool {
		data, err := os.ReadFile(filepath.Join(b.root, r.Path))
		if err != nil {
			panic(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range r.Lines {
			text := lines[l.Number-1]
			if b.bytes && len(text) > search.MaxLineBytes {
				text = text[:search.MaxLineBytes]
			}
			r.Lines[i].Text = text
		}
		return emit(r)
	})
}

// TestBrokenBackend runs the suite on one broken backend when the parent
// test asks for it.
func TestBrokenBackend(t *testing.T) {
	variant := os.Getenv("SEARCHTEST_BROKEN")
	if variant == "" {
		t.Skip("run by TestSuiteFindsBrokenBackends")
	}
	switch variant {
	case "reversed":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return reversed{search.NewNative(root)} })
		searchtest.TestGlobber(t, func(root string) search.Globber { return reversed{search.NewNative(root)} })
	case "nostop":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return noStop{search.NewNative(root)} })
	case "quieterrors":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return quietErrors{search.NewNative(root)} })
	case "nocontext":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return noContext{search.NewNative(root)} })
	case "wholelines":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return rawLines{search.NewNative(root), root, false} })
	case "bytecut":
		searchtest.TestGrepper(t, func(root string) search.Grepper { return rawLines{search.NewNative(root), root, true} })
	case "hidden":
		searchtest.TestGlobber(t, func(root string) search.Globber { return alwaysHidden{search.NewNative(root)} })
	}
}

// TestSuiteFindsBrokenBackends checks that the suite fails, in the right
// places, for backends that break the rules.
func TestSuiteFindsBrokenBackends(t *testing.T) {
	if os.Getenv("SEARCHTEST_BROKEN") != "" {
		t.Skip()
	}
	cases := map[string][]string{
		"reversed":    {"--- FAIL: TestBrokenBackend/Order", "--- FAIL: TestBrokenBackend/Limits"},
		"nostop":      {"--- FAIL: TestBrokenBackend/Limits", "emit called after it returned false"},
		"quieterrors": {"--- FAIL: TestBrokenBackend/InvalidPattern", "--- FAIL: TestBrokenBackend/Path"},
		"nocontext":   {"--- FAIL: TestBrokenBackend/Context", "--- FAIL: TestBrokenBackend/Multiline"},
		"hidden":      {"--- FAIL: TestBrokenBackend/Ignore", "--- FAIL: TestBrokenBackend/HiddenAndGit"},
		"wholelines":  {"--- FAIL: TestBrokenBackend/LongLines", "a line of 65542 bytes"},
		"bytecut":     {"--- FAIL: TestBrokenBackend/LongLines", "rune.txt"},
	}
	for variant, want := range cases {
		t.Run(variant, func(t *testing.T) {
			t.Parallel() // each variant is a process of its own
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenBackend$", "-test.v")
			cmd.Env = append(os.Environ(), "SEARCHTEST_BROKEN="+variant)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a backend that is %s:\n%s", variant, out)
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
