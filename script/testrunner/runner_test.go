package testrunner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script"
)

// watchdog turns a hang into a failure; no assertion depends on timing.
const watchdog = testwait.Step

// run calls Run with a watchdog and returns the report.
func run(t *testing.T, ctx context.Context, opts Options, paths ...string) (string, Summary, error) {
	t.Helper()
	var out bytes.Buffer
	opts.Out = &out
	var (
		sum  Summary
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		sum, err = Run(ctx, opts, paths)
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatalf("Run(%v) still running after %v", paths, watchdog)
	}
	return out.String(), sum, err
}

func wantReport(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("report differs\n--- got:\n%s--- want:\n%s", got, want)
	}
}

// TestRunReport runs passing, failing, skipping and broken files and
// compares the whole report.
func TestRunReport(t *testing.T) {
	report, sum, err := run(t, context.Background(), Options{MaxSteps: 100_000}, "testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, report, `ok   testdata/run/a_pass_test.star test_clock
ok   testdata/run/a_pass_test.star test_fails
ok   testdata/run/a_pass_test.star test_mock
ok   testdata/run/a_pass_test.star test_mock_gone
ok   testdata/run/a_pass_test.star test_state_is_fresh
ok   testdata/run/a_pass_test.star test_state_is_fresh_again
ok   testdata/run/a_pass_test.star test_tool
ok   testdata/run/b_order_test.star test_a
ok   testdata/run/b_order_test.star test_b
ok   testdata/run/b_order_test.star test_c
FAIL testdata/run/c_fail_test.star test_assert
    Traceback (most recent call last):
      testdata/run/c_fail_test.star:6:14: in test_assert
      <builtin>: in assert.eq
    testdata/run/c_fail_test.star:6:14: assert.eq: arithmetic: got 2, want 3
    output:
        about to compare
        two lines
FAIL testdata/run/c_fail_test.star test_error
    Traceback (most recent call last):
      testdata/run/c_fail_test.star:12:11: in test_error
      testdata/run/c_fail_test.star:9:13: in lookup
    testdata/run/c_fail_test.star:9:13: key "missing" not in dict
FAIL testdata/run/c_fail_test.star test_forever
    Traceback (most recent call last):
      testdata/run/c_fail_test.star:14:1: in test_forever
    testdata/run/c_fail_test.star:14:1: Starlark computation cancelled: step budget of 100000 exceeded
FAIL testdata/run/c_fail_test.star test_no_error
    Traceback (most recent call last):
      testdata/run/c_fail_test.star:19:17: in test_no_error
      <builtin>: in assert.fails
    testdata/run/c_fail_test.star:19:17: assert.fails: the function returned, want an error matching "denied"
ok   testdata/run/c_fail_test.star test_passes
skip testdata/run/d_skip_test.star test_later: needs a network
ok   testdata/run/d_skip_test.star test_now
FAIL testdata/run/e_broken_test.star
    testdata/run/e_broken_test.star:1:18: got ':', want ')'
FAIL testdata/run/f_load_test.star
    Traceback (most recent call last):
      testdata/run/f_load_test.star:1:1: in <toplevel>
    testdata/run/f_load_test.star:1:1: cannot load missing.star: load "missing.star": open testdata/run/missing.star: no such file or directory
?    testdata/run/g_helpers_test.star: no test_* functions
skip testdata/run/h_skipfile_test.star: the whole file needs a database
12 passed, 6 failed, 2 skipped
`)
	if want := (Summary{Passed: 12, Failed: 6, Skipped: 2}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}

	// The same tests give the same bytes.
	again, _, _ := run(t, context.Background(), Options{MaxSteps: 100_000}, "testdata/run")
	if again != report {
		t.Errorf("a second run differs:\n%s", again)
	}
}

// TestRunVerbose shows the output of passed and skipped tests too, in the
// order the tests ran: the top level's output comes first for every test.
func TestRunVerbose(t *testing.T) {
	report, sum, err := run(t, context.Background(), Options{Verbose: true},
		"testdata/run/b_order_test.star", "testdata/run/d_skip_test.star")
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, report, `ok   testdata/run/b_order_test.star test_a
    output:
        a
ok   testdata/run/b_order_test.star test_b
    output:
        b
ok   testdata/run/b_order_test.star test_c
    output:
        c
skip testdata/run/d_skip_test.star test_later: needs a network
    output:
        checked the network
ok   testdata/run/d_skip_test.star test_now
4 passed, 0 failed, 1 skipped
`)
	if sum != (Summary{Passed: 4, Skipped: 1}) {
		t.Errorf("summary %+v", sum)
	}

	report, _, _ = run(t, context.Background(), Options{Verbose: true}, "testdata/run/a_pass_test.star")
	if n := strings.Count(report, "        top level\n"); n != 7 {
		t.Errorf("the top level's print appears %d times, want once per test (7):\n%s", n, report)
	}
}

// TestRunClock: time.now() is Options.Now, or script.TestClock.
func TestRunClock(t *testing.T) {
	report, _, _ := run(t, context.Background(), Options{Verbose: true}, "testdata/clock")
	wantReport(t, report, "ok   testdata/clock/clock_test.star test_now\n    output:\n        2025-01-01 00:00:00 +0000 UTC\n1 passed, 0 failed\n")
	now := time.Date(2030, 6, 15, 12, 30, 0, 0, time.UTC)
	report, _, _ = run(t, context.Background(), Options{Verbose: true, Now: now}, "testdata/clock")
	wantReport(t, report, "ok   testdata/clock/clock_test.star test_now\n    output:\n        2030-06-15 12:30:00 +0000 UTC\n1 passed, 0 failed\n")
}

// TestRunCancel: a test that loops forever is stopped when the run's
// context ends; the run stops there and returns the context's error.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hosts := 0
	opts := Options{NewHost: func(out io.Writer) (*script.Host, func(), error) {
		hosts++
		ex := executor.New(nil)
		err := ex.Registry().RegisterTools(core.Tool{Name: "cancel",
			Func: func(context.Context, json.RawMessage) (any, error) { cancel(); return "", nil }})
		return script.NewHost(ex, out), func() { _ = ex.Close() }, err
	}}
	report, sum, err := run(t, ctx, opts, "testdata/cancel")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error %v, want context.Canceled", err)
	}
	// Where the thread notices the cancellation varies: mask the position.
	report = regexp.MustCompile(`star:\d+:\d+:`).ReplaceAllString(report, "star:L:C:")
	wantReport(t, report, `FAIL testdata/cancel/a_loop_test.star test_a_forever
    Traceback (most recent call last):
      testdata/cancel/a_loop_test.star:L:C: in test_a_forever
    testdata/cancel/a_loop_test.star:L:C: Starlark computation cancelled: canceled
0 passed, 1 failed
`)
	if sum != (Summary{Failed: 1}) {
		t.Errorf("summary %+v", sum)
	}
	if hosts != 2 {
		t.Errorf("NewHost called %d times, want 2 (finding the tests, running the first)", hosts)
	}

	// A context that has already ended runs nothing.
	report, sum, err = run(t, ctx, Options{}, "testdata/run")
	if !errors.Is(err, context.Canceled) || sum != (Summary{}) || report != "0 passed, 0 failed\n" {
		t.Errorf("cancelled run: %q, %+v, %v", report, sum, err)
	}
}

// TestRunFreshHosts: every test, and the finding of a file's tests, gets
// its own host, released afterwards.
func TestRunFreshHosts(t *testing.T) {
	made, released := 0, 0
	opts := Options{NewHost: func(out io.Writer) (*script.Host, func(), error) {
		made++
		h, rel, err := defaultHost(out)
		return h, func() { released++; rel() }, err
	}}
	_, sum, err := run(t, context.Background(), opts, "testdata/run/b_order_test.star")
	if err != nil || sum.Passed != 3 {
		t.Fatalf("%+v, %v", sum, err)
	}
	if made != 4 || released != 4 {
		t.Errorf("made %d hosts and released %d, want 4 and 4 (one to find the tests, one per test)", made, released)
	}

	// A host that cannot be made ends the run with an error.
	boom := errors.New("no workdir")
	_, _, err = run(t, context.Background(), Options{NewHost: func(io.Writer) (*script.Host, func(), error) {
		return nil, nil, boom
	}}, "testdata/run/b_order_test.star")
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "cannot make a host") {
		t.Errorf("Run error %v, want one wrapping %v", err, boom)
	}
}

// fakeInterp stands in for another language: the report only needs
// errors, with or without a Detail method.
type fakeInterp struct{ host *script.Host }

type detailed struct{ msg string }

func (d *detailed) Error() string  { return d.msg }
func (d *detailed) Detail() string { return "stack:\n  somewhere\n" + d.msg }

func (f fakeInterp) LoadFile(ctx context.Context, path string) error {
	f.host.Print("loaded " + filepath.Base(path))
	return nil
}
func (fakeInterp) Run(context.Context, string, []byte) error { return nil }
func (fakeInterp) Eval(context.Context, string, []byte) (string, error) {
	return "", nil
}
func (fakeInterp) ReadChunk(func() ([]byte, error)) ([]byte, error) { return nil, io.EOF }
func (fakeInterp) Complete(string, int) (int, []string)             { return 0, nil }
func (fakeInterp) Functions() []string {
	return []string{"helper", "test_detail", "test_ok", "test_panic", "test_plain", "test_skip"}
}
func (fakeInterp) Close() error { return nil }

func (f fakeInterp) CallGlobal(ctx context.Context, name string) error {
	f.host.Print("ran " + name)
	switch name {
	case "test_detail":
		return fmt.Errorf("wrapped: %w", &detailed{"x.lua:3: boom"})
	case "test_panic":
		panic("bad state")
	case "test_plain":
		return errors.New("x.lua:7: plain")
	case "test_skip":
		return fmt.Errorf("in test: %w", &script.Skipped{Reason: "later"})
	}
	return nil
}

func init() {
	script.RegisterLanguage(script.Language{Name: "fake", Extensions: []string{".fake"},
		New: func(h *script.Host, _ script.Options) script.Interp { return fakeInterp{h} }})
}

// TestRunLanguages: languages plug in by extension through the registry;
// a file of no registered language is not a test file.
func TestRunLanguages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.unknown"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, context.Background(), Options{}, filepath.Join(dir, "x.unknown"))
	if err == nil || !strings.Contains(err.Error(), "not a test file (want a .fake, .lua or .star file") {
		t.Errorf("unknown extension: %v", err)
	}

	path := filepath.Join(dir, "c_test.fake")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	report, sum, err := run(t, context.Background(), Options{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	wantReport(t, report, strings.ReplaceAll(`FAIL PATH test_detail
    stack:
      somewhere
    x.lua:3: boom
    output:
        loaded c_test.fake
        ran test_detail
ok   PATH test_ok
FAIL PATH test_panic
    panic: bad state
    output:
        loaded c_test.fake
        ran test_panic
FAIL PATH test_plain
    x.lua:7: plain
    output:
        loaded c_test.fake
        ran test_plain
skip PATH test_skip: later
1 passed, 3 failed, 1 skipped
`, "PATH", path))
	if sum != (Summary{Passed: 1, Failed: 3, Skipped: 1}) {
		t.Errorf("summary %+v", sum)
	}
}

func TestSummaryString(t *testing.T) {
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{}, "0 passed, 0 failed"},
		{Summary{Passed: 3, Failed: 1}, "3 passed, 1 failed"},
		{Summary{Passed: 1, Skipped: 2}, "1 passed, 0 failed, 2 skipped"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestFind: directories are walked, skipping hidden directories and
// testdata below the named directory; named files always count.
func TestFind(t *testing.T) {
	got, err := Find([]string{"testdata/tree"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"testdata/tree/a_test.star",
		"testdata/tree/sub/b_test.star",
		"testdata/tree/sub/c_test.lua",
		"testdata/tree/sub/deeper/d_test.star",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Find(testdata/tree) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Named files and directories are used even where a walk would skip
	// them; duplicates appear once, and the result is sorted.
	got, err = Find([]string{"testdata/tree/testdata", "./testdata/tree/.hidden/y_test.star", "testdata/tree/a_test.star",
		"testdata/tree/helper.star", "testdata/tree/a_test.star", "testdata/tree/.hidden"})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"testdata/tree/.hidden/y_test.star",
		"testdata/tree/a_test.star",
		"testdata/tree/helper.star",
		"testdata/tree/testdata/x_test.star",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Find(named) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFindDefaultDir(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x_test.star", "lib/y_test.star", "testdata/skipped_test.star", ".git/z_test.star"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("def test_ok():\n    pass\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	got, err := Find(nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "lib/y_test.star x_test.star" {
		t.Errorf("Find(nil) = %v", got)
	}
	report, sum, err := run(t, context.Background(), Options{}, nil...)
	if err != nil || sum.Passed != 2 {
		t.Errorf("Run in the current directory: %+v, %v\n%s", sum, err, report)
	}
}

func TestFindErrors(t *testing.T) {
	_, err := Find([]string{"testdata/tree/testdata/../sub/notes_test.txt"})
	if err == nil || !strings.Contains(err.Error(), "not a test file (want a .fake, .lua or .star file, or a directory)") {
		t.Errorf("Find(.txt) error %v", err)
	}
	_, err = Find([]string{"testdata/no-such-dir"})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Find(missing) error %v, want os.ErrNotExist", err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "main.star"), []byte("pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Find([]string{empty, "testdata/tree/helper.star/.."})
	if err == nil {
		t.Errorf("Find(a path through a file) succeeded")
	}
	other := t.TempDir()
	_, err = Find([]string{empty, other})
	want := fmt.Sprintf("no *_test.fake, *_test.lua or *_test.star files under %s %s", empty, other)
	if err == nil || err.Error() != want {
		t.Errorf("Find(no tests) error %v, want %q", err, want)
	}
	// Run reports the same errors and writes nothing.
	report, _, err := run(t, context.Background(), Options{}, empty)
	if err == nil || !strings.HasPrefix(err.Error(), "no *_test.fake, *_test.lua or *_test.star files under ") || report != "" {
		t.Errorf("Run(no tests) = %q, %v", report, err)
	}
}
