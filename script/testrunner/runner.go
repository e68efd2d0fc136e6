package testrunner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/wording"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/builtins"
)

// Options configures Run. The zero value is usable: fresh hosts without
// built-in tools, the fixed clock script.TestClock, the default step
// budget, and no report.
type Options struct {
	// NewHost returns a fresh host for one test run whose script output
	// goes to out, and a function that releases it. nil means a host on a
	// new executor with argument validation on and no tools.
	NewHost func(out io.Writer) (*script.Host, func(), error)
	// Now is the fixed clock of time.now(); zero means script.TestClock.
	Now time.Time
	// MaxSteps is the Starlark step budget of each top-level run and each
	// call; 0 means the interpreter's default.
	MaxSteps uint64
	// Out receives the report; nil discards it.
	Out io.Writer
	// Verbose also shows the output of passed and skipped tests.
	Verbose bool
	// Load are script files (of any registered language) run on every
	// test's host before the test file, in order, as agentsh --load runs
	// them: their tools, hooks and middleware apply to the tests.
	Load []string
	// Run, when set, selects the tests to run: those whose name it
	// matches (searched, as go test -run does).
	Run *regexp.Regexp
}

// Summary counts the outcomes of a run. A file whose top level fails
// counts as one failure.
type Summary struct{ Passed, Failed, Skipped int }

// String is the closing line of the report: "N passed, N failed", with
// ", N skipped" when any test was skipped.
func (s Summary) String() string {
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	return line
}

// testSuffixes name the test files Find collects in directories: _test
// and the extension of a registered language.
func testSuffixes() []string {
	var out []string
	for _, ext := range script.Extensions() {
		out = append(out, "*_test"+ext)
	}
	return out
}

// Find returns the test files under paths (the current directory when
// there are none), sorted and without duplicates. Directories are walked
// recursively, skipping hidden directories and directories named testdata
// below the named one; files named explicitly are included whatever their
// names, if they are .star or .lua files. Finding no test file is an
// error.
func Find(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	seen := map[string]bool{}
	var files []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if _, ok := script.LanguageOf(root); !ok {
				return nil, fmt.Errorf("%s: not a test file (want a %s file, or a directory)", root, wording.OrList(script.Extensions()))
			}
			add(root)
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if isTestFile(name) {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s files under %s", wording.OrList(testSuffixes()), strings.Join(paths, " "))
	}
	sort.Strings(files)
	return files, nil
}

func isTestFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	for _, s := range testSuffixes() {
		s = strings.TrimPrefix(s, "*")
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// Run finds the test files under paths, runs their tests and writes the
// report (see the package documentation) to opts.Out. Failing tests are
// counted in the Summary, not returned as an error; the error is for a
// run that could not be done: no test files, a path that does not exist,
// a host that could not be made, or ctx ending (the report then stops
// after the test that was running, with its closing line).
func Run(ctx context.Context, opts Options, paths []string) (Summary, error) {
	files, err := Find(paths)
	if err != nil {
		return Summary{}, err
	}
	if opts.Now.IsZero() {
		opts.Now = script.TestClock
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.NewHost == nil {
		opts.NewHost = defaultHost
	}
	r := &runner{opts: opts}
	for _, f := range files {
		if err = ctx.Err(); err != nil {
			break
		}
		if err = r.file(ctx, f); err != nil {
			break
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	fmt.Fprintln(opts.Out, r.sum)
	return r.sum, err
}

// defaultHost is a host on a new executor that validates arguments.
func defaultHost(out io.Writer) (*script.Host, func(), error) {
	ex := executor.New(nil, executor.WithValidateArguments(true))
	AssumeSandbox(ex)
	h := script.NewHost(ex, out)
	h.SetDeclarations(builtins.Tool)
	return h, func() { _ = ex.Close() }, nil
}

// AssumeSandbox makes ex decide as if a sandbox could confine commands
// when none can here, so that a policy's tests give the same verdicts on
// every machine: tests decide calls and run stand-ins (mock_tool), not
// commands. A command a test does run still needs a real sandbox, and
// fails without one.
func AssumeSandbox(ex *executor.Executor) {
	s := ex.Sandboxing()
	real := s.Backend
	s.Backend = func() (string, error) {
		if real != nil {
			if name, err := real(); err == nil {
				return name, nil
			}
		}
		return "assumed in tests", nil
	}
	ex.SetSandboxing(s)
}

type runner struct {
	opts    Options
	sum     Summary
	closers []script.Interp // the interpreters of the host in use
}

// file runs the tests of one file. Its error ends the whole run.
func (r *runner) file(ctx context.Context, path string) error {
	var names []string
	out, err := r.onHost(func(host *script.Host) error {
		in, err := r.load(ctx, host, path)
		if err != nil {
			return err
		}
		for _, name := range in.Functions() {
			if strings.HasPrefix(name, "test_") {
				names = append(names, name)
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errNoHost):
		return err
	case err != nil:
		r.outcome(path, err, out)
		return nil
	case len(names) == 0:
		fmt.Fprintf(r.opts.Out, "?    %s: no test_* functions\n", path)
		return nil
	}
	for _, name := range names {
		if r.opts.Run != nil && !r.opts.Run.MatchString(name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := r.onHost(func(host *script.Host) error {
			in, err := r.load(ctx, host, path)
			if err != nil {
				return err
			}
			return in.CallGlobal(ctx, name)
		})
		if errors.Is(err, errNoHost) {
			return err
		}
		r.outcome(path+" "+name, err, out)
	}
	return nil
}

// load runs Options.Load and then the test file path on host, each file
// in its own language's interpreter, and returns the test file's. The
// interpreters are closed when the host is released.
func (r *runner) load(ctx context.Context, host *script.Host, path string) (script.Interp, error) {
	interps := map[string]script.Interp{}
	var in script.Interp
	for _, f := range append(r.opts.Load[:len(r.opts.Load):len(r.opts.Load)], path) {
		lang, ok := script.LanguageOf(f)
		if !ok {
			return nil, fmt.Errorf("%s: no script language for %q files (want a %s file)", f, filepath.Ext(f), wording.OrList(script.Extensions()))
		}
		in = interps[lang.Name]
		if in == nil {
			now := r.opts.Now
			in = lang.New(host, script.Options{MaxSteps: r.opts.MaxSteps, Now: func() time.Time { return now }, Testing: true})
			interps[lang.Name] = in
			r.closers = append(r.closers, in)
		}
		if err := in.LoadFile(ctx, f); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// errNoHost marks a failure of Options.NewHost.
var errNoHost = errors.New("cannot make a host")

// onHost runs fn on a fresh host and returns what it printed.
func (r *runner) onHost(fn func(*script.Host) error) (out string, err error) {
	var buf lockedBuffer
	host, release, err := r.opts.NewHost(&buf)
	if err != nil {
		return "", fmt.Errorf("%w for a test: %w", errNoHost, err)
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("panic: %v", v)
			}
		}()
		defer release()
		defer r.closeInterps()
		err = fn(host)
	}()
	return buf.String(), err
}

// closeInterps closes the interpreters of the host that is released.
func (r *runner) closeInterps() {
	for _, in := range r.closers {
		_ = in.Close()
	}
	r.closers = nil
}

// outcome counts and reports one entry (a test, or a file whose top level
// failed).
func (r *runner) outcome(what string, err error, out string) {
	var skip *script.Skipped
	switch {
	case err == nil:
		r.sum.Passed++
		r.entry("ok", what, nil, r.verbose(out))
	case errors.As(err, &skip):
		r.sum.Skipped++
		r.entry("skip", what+": "+skip.Reason, nil, r.verbose(out))
	default:
		r.sum.Failed++
		r.entry("FAIL", what, err, out)
	}
}

func (r *runner) verbose(out string) string {
	if r.opts.Verbose {
		return out
	}
	return ""
}

// entry writes one report entry: the status line, the error and the
// output, indented.
func (r *runner) entry(status, what string, err error, out string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %s\n", status, what)
	if err != nil {
		indent(&b, "    ", errorText(err))
	}
	if out != "" {
		b.WriteString("    output:\n")
		indent(&b, "        ", out)
	}
	io.WriteString(r.opts.Out, b.String())
}

// errorText is the error as a person should read it: with its backtrace
// when the language's error type has one (a Detail method).
func errorText(err error) string {
	var d interface{ Detail() string }
	if errors.As(err, &d) {
		return d.Detail()
	}
	return err.Error()
}

func indent(b *strings.Builder, prefix, text string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(prefix + line + "\n")
	}
}

// lockedBuffer is a test's output; prints from concurrent calls land here.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
