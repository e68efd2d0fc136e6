// Package scripttest is the conformance suite of script languages, in the
// manner of testing/fstest: a binding registered with package script
// passes it when every conformance program, run in that language, prints
// byte for byte its golden transcript, under each execution mode an
// executor can default to. Starlark and Lua pass it; so must any other
// language.
//
// # Programs
//
// A conformance directory (agentsh's is testdata/conformance) holds
// programs: NAME.golden is the transcript, and NAME.EXT the program in
// the language of the extension EXT (NAME.star, NAME.lua, ...), each
// expressing the same logic in its own language. A program may need
// definitions from another language: NAME.prelude.EXT runs before NAME's
// program in every other language, on the same host (the first such
// prelude, by extension, when there are several), so one half of a policy
// can be written in each language. A prelude in a language that is not
// registered is an error: import its binding.
//
// Every program runs on a fresh executor whose registry holds the Go
// tools of Fixtures, with argument validation on, printing to a buffer,
// with an agent (package agentapi: model, ask, spawn, on's lifecycle
// events and the task tool) and no model until the program sets one.
//
// # Concurrency
//
// Run and TestLanguage may be called concurrently; each run has its own
// host.
package scripttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/agentapi"
	shared "github.com/agentsh/agentsh/script/internal/scripttest"
)

// Watchdog bounds one run of one program, so that a hang fails the test
// instead of blocking it.
const Watchdog = 20 * time.Second

// Modes are the execution modes every program runs under.
var Modes = []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed}

// TestLanguage runs every program of dir in the registered language lang
// (a name or alias), in every mode of Modes, as subtests NAME/MODE, and
// fails each run whose output differs from NAME.golden; the failure shows
// a line diff. A missing program of lang fails too.
func TestLanguage(t *testing.T, lang, dir string) {
	t.Helper()
	l, ok := script.LookupLanguage(lang)
	if !ok {
		t.Fatalf("scripttest: %v (import its binding)", script.UnknownLanguage(lang))
	}
	names, err := Programs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join(dir, name+".golden")
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := programFile(dir, name, l); err != nil {
				t.Fatal(err)
			}
			outs := map[executor.Mode]string{}
			for _, mode := range Modes {
				t.Run(mode.String(), func(t *testing.T) {
					got, err := Run(dir, name, l.Name, mode)
					if err != nil {
						t.Fatalf("%s in %s, mode %s, failed: %s\noutput so far:\n%s", name, l.Name, mode, err, got)
					}
					outs[mode] = got
					if got != string(want) {
						t.Errorf("%s in %s, mode %s, differs from %s (- want, + got):\n%s", name, l.Name, mode, golden, LineDiff(string(want), got))
					}
				})
			}
			// The modes must agree with each other too.
			for _, mode := range Modes[1:] {
				a, aok := outs[Modes[0]]
				b, bok := outs[mode]
				if aok && bok && a != b {
					t.Errorf("%s in %s: modes %s and %s differ (- %[3]s, + %[4]s):\n%s", name, l.Name, Modes[0], mode, LineDiff(a, b))
				}
			}
		})
	}
}

// Programs lists the programs of dir: the NAME of every NAME.golden,
// sorted. A directory without any is an error.
func Programs(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".golden"))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("scripttest: no conformance programs (NAME.golden) in %s", dir)
	}
	return names, nil
}

// programFile is the file of program name in language l.
func programFile(dir, name string, l script.Language) (string, error) {
	for _, ext := range l.Extensions {
		p := filepath.Join(dir, name+ext)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("scripttest: program %s has no %s version (want %s in %s)", name, l.Name, name+strings.Join(l.Extensions, " or "+name), dir)
}

// prelude is the prelude that runs before program name in language l:
// the first NAME.prelude.EXT, by extension, of another language, or "".
func prelude(dir, name string, l script.Language) (string, script.Language, error) {
	paths, err := filepath.Glob(filepath.Join(dir, name+".prelude.*"))
	if err != nil {
		return "", script.Language{}, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		pl, ok := script.LanguageOf(p)
		if !ok {
			return "", script.Language{}, fmt.Errorf("scripttest: %s is in no registered language (import its binding)", p)
		}
		if pl.Name != l.Name {
			return p, pl, nil
		}
	}
	return "", script.Language{}, nil
}

// Run runs program name of dir in the registered language lang, after its
// prelude, on a fresh executor whose default mode is mode, and returns
// what the scripts printed. The error of a failed script carries its
// backtrace.
func Run(dir, name, lang string, mode executor.Mode) (string, error) {
	l, ok := script.LookupLanguage(lang)
	if !ok {
		return "", script.UnknownLanguage(lang)
	}
	path, err := programFile(dir, name, l)
	if err != nil {
		return "", err
	}
	pre, preLang, err := prelude(dir, name, l)
	if err != nil {
		return "", err
	}
	reg := core.NewRegistry()
	if err := reg.RegisterTools(Fixtures()...); err != nil {
		return "", err
	}
	ex := executor.New(reg, executor.WithValidateArguments(true), executor.WithExecutionMode(mode))
	defer ex.Close()
	// The host's output; a call that outlives its script (it cannot, but a
	// broken binding might) must not race with the test.
	var out shared.Buffer
	host := script.NewHost(ex, &out)
	// The agent, as agentsh has one: model(fn), ask(), spawn(), the
	// lifecycle events and the task tool.
	sess, err := agentapi.Install(host, agentapi.Config{})
	if err != nil {
		return "", err
	}
	defer sess.Close()

	ctx, cancel := context.WithTimeout(context.Background(), Watchdog)
	defer cancel()
	type step struct {
		in   script.Interp
		path string
	}
	var steps []step
	if pre != "" {
		in := preLang.New(host, script.Options{})
		defer in.Close()
		steps = append(steps, step{in, pre})
	}
	in := l.New(host, script.Options{})
	defer in.Close()
	steps = append(steps, step{in, path})
	for _, s := range steps {
		if err := s.in.LoadFile(ctx, s.path); err != nil {
			msg := detail(err)
			if ctx.Err() != nil {
				msg = fmt.Sprintf("watchdog: still running after %s: %s", Watchdog, msg)
			}
			return out.String(), errors.New(msg)
		}
	}
	return out.String(), nil
}

// detail is an error with its script backtrace, when it has one.
func detail(err error) string {
	var se *script.Error
	if errors.As(err, &se) {
		return se.Detail()
	}
	return err.Error()
}

// Fixtures are the Go tools every conformance program can call:
//
//   - go_echo {…}: returns its arguments as a JSON object (safe).
//   - go_panic {msg}: panics with "fixture panic: MSG".
//   - go_sleep {ms}: waits ms milliseconds or until its context ends, then
//     returns "slept MS ms" or the context's error (safe).
//   - go_safe, go_undeclared, go_unsafe {…}: concurrency safe, undeclared
//     and unsafe; each holds a slot for 2ms and returns "NAME ARGS".
//     go_unsafe appends " alone" when no other of these three ran while it
//     did, else " overlapped": an unsafe call is a barrier in every mode,
//     so a correct executor always prints alone.
func Fixtures() []core.Tool {
	var active atomic.Int32
	slot := func(ctx context.Context) (overlapped bool) {
		n := active.Add(1)
		defer active.Add(-1)
		t := time.NewTimer(2 * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return n > 1 || active.Load() > 1
	}
	scheduled := func(name string, safe *bool) core.Tool {
		return core.Tool{Name: name, ConcurrencySafe: safe,
			Description: "Holds a slot for 2ms (conformance fixture).",
			Func: func(ctx context.Context, args json.RawMessage) (any, error) {
				overlapped := slot(ctx)
				out := name + " " + string(args)
				if safe != nil && !*safe {
					if overlapped {
						return out + " overlapped", nil
					}
					return out + " alone", nil
				}
				return out, nil
			}}
	}
	return []core.Tool{
		{Name: "go_echo", Description: "Returns its arguments.", ConcurrencySafe: core.Bool(true),
			Func: func(ctx context.Context, args json.RawMessage) (any, error) {
				var v map[string]any
				if err := json.Unmarshal(args, &v); err != nil {
					return nil, err
				}
				return v, nil
			}},
		{Name: "go_panic", Description: "Panics.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string"}}}`),
			Func: func(ctx context.Context, args json.RawMessage) (any, error) {
				var a struct{ Msg string }
				_ = json.Unmarshal(args, &a)
				panic("fixture panic: " + a.Msg)
			}},
		{Name: "go_sleep", Description: "Sleeps, honouring its context.", ConcurrencySafe: core.Bool(true),
			Parameters: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
			Func: func(ctx context.Context, args json.RawMessage) (any, error) {
				var a struct{ MS int64 }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				t := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return fmt.Sprintf("slept %d ms", a.MS), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}},
		scheduled("go_safe", core.Bool(true)),
		scheduled("go_undeclared", nil),
		scheduled("go_unsafe", core.Bool(false)),
	}
}

// LineDiff returns a line diff of a and b ("- " only in a, "+ " only in b,
// "  " in both), or "" when they are equal.
func LineDiff(a, b string) string {
	if a == b {
		return ""
	}
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		mark byte // ' ', '-' or '+'
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i++
			j++
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	// Show the changed lines with diffContext lines around them.
	const diffContext = 2
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.mark != ' ' {
			for c := max(k-diffContext, 0); c <= min(k+diffContext, len(ops)-1); c++ {
				show[c] = true
			}
		}
	}
	var out strings.Builder
	for k, o := range ops {
		if !show[k] {
			if k > 0 && show[k-1] {
				out.WriteString("  ...\n")
			}
			continue
		}
		fmt.Fprintf(&out, "%c %s\n", o.mark, o.line)
	}
	if strings.HasSuffix(a, "\n") != strings.HasSuffix(b, "\n") {
		out.WriteString("(one side has no newline at end of text)\n")
	}
	return out.String()
}
