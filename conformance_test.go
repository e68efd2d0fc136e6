package agentsh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/lua"
	"github.com/agentsh/agentsh/script/starlark"
)

// The cross-language conformance suite. Every NAME.star in
// testdata/conformance has a partner NAME.lua expressing the same program;
// both must print byte for byte the same transcript, which must equal
// NAME.golden, under each of the three execution modes an executor can
// default to (DESIGN §4: "The same script logic in either language produces
// the same transcript"; §5: determinism across modes).
//
// A program may need definitions from the other language: NAME.prelude.lua
// runs (as Lua) before NAME.star, and NAME.prelude.star runs (as Starlark)
// before NAME.lua, on the same host. The two preludes are the same program
// too, so both runs see the same tools and policies, each time half of them
// from the other language.
//
// Rewrite the goldens from the Starlark runs with
//
//	go test -run Conformance . -update

var update = flag.Bool("update", false, "rewrite testdata/conformance/*.golden from the Starlark output")

const conformanceDir = "testdata/conformance"

// conformanceWatchdog bounds one run of one program, so a hang fails the
// test instead of blocking it.
const conformanceWatchdog = 20 * time.Second

// conformancePairs are the pairs the suite must contain; the test fails if
// one is missing, so the coverage cannot shrink by deleting a file.
var conformancePairs = []string{
	"cross_policy",   // a Starlark policy on a Lua tool and the other way round
	"dual_silent",    // dual(...), silent(...), structured outputs, for_user
	"errors",         // every error kind: unknown, invalid JSON, schema, raise, panic, timeout
	"modes",          // invoke_all in serial, parallel and mixed; safe, unsafe, undeclared
	"nested",         // tools, hooks and middleware calling tools; recursion; nested batches
	"offload",        // config(offload = N) and artifact_read
	"pipeline_order", // tool-specific and global before/after hooks, two middleware
	"reject_rewrite", // deny and rewrite from hooks and middleware, fail-closed hooks
}

// conformanceSkips names pairs that cannot pass because a binding departs
// from its documented contract, with the exact difference.
var conformanceSkips = map[string]string{}

var conformanceModes = []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed}

// conformanceLangs are the languages, by file extension. The prelude of a
// program always comes from the other one.
var conformanceLangs = []string{"star", "lua"}

func otherLang(lang string) string {
	if lang == "star" {
		return "lua"
	}
	return "star"
}

// runner runs script files of one language on a host.
type runner interface {
	execFile(ctx context.Context, path string) error
	close()
}

type starRunner struct{ in *starlark.Interp }

func (r starRunner) execFile(ctx context.Context, path string) error {
	_, err := r.in.ExecFile(ctx, path)
	return err
}
func (r starRunner) close() {}

type luaRunner struct{ in *lua.Interp }

func (r luaRunner) execFile(ctx context.Context, path string) error {
	_, err := r.in.ExecFile(ctx, path)
	return err
}
func (r luaRunner) close() { r.in.Close() }

// newRunner returns an interpreter for lang ("star" or "lua") on host.
func newRunner(lang string, host *script.Host) runner {
	if lang == "lua" {
		return luaRunner{lua.New(host, lua.Options{})}
	}
	return starRunner{starlark.New(host, starlark.Options{})}
}

// syncBuffer is the host's output; a call that outlives its script (it
// cannot, but a broken binding might) must not race with the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// conformanceFixtures are the Go tools every program can call:
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
func conformanceFixtures() []core.Tool {
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

// runConformance runs NAME.LANG (after the other language's prelude, if
// any) on a fresh executor whose default mode is mode, and returns what
// the scripts printed.
func runConformance(name, lang string, mode executor.Mode) (string, error) {
	reg := core.NewRegistry()
	if err := reg.RegisterTools(conformanceFixtures()...); err != nil {
		return "", err
	}
	ex := executor.New(reg, executor.WithValidateArguments(true), executor.WithExecutionMode(mode))
	var out syncBuffer
	host := script.NewHost(ex, &out)

	runners := map[string]runner{}
	for _, l := range conformanceLangs {
		r := newRunner(l, host)
		defer r.close()
		runners[l] = r
	}

	ctx, cancel := context.WithTimeout(context.Background(), conformanceWatchdog)
	defer cancel()
	files := []struct{ lang, path string }{}
	prelude := filepath.Join(conformanceDir, name+".prelude."+otherLang(lang))
	if _, err := os.Stat(prelude); err == nil {
		files = append(files, struct{ lang, path string }{otherLang(lang), prelude})
	}
	files = append(files, struct{ lang, path string }{lang, filepath.Join(conformanceDir, name+"."+lang)})
	for _, f := range files {
		if err := runners[f.lang].execFile(ctx, f.path); err != nil {
			msg := errorDetail(err)
			if ctx.Err() != nil {
				msg = fmt.Sprintf("watchdog: still running after %s: %s", conformanceWatchdog, msg)
			}
			return out.String(), errors.New(msg)
		}
	}
	return out.String(), nil
}

// errorDetail is an error with its script backtrace, when it has one.
func errorDetail(err error) string {
	var d interface{ Detail() string }
	if errors.As(err, &d) {
		return d.Detail()
	}
	return err.Error()
}

// TestConformance runs every pair in both languages and every default
// execution mode, and compares each transcript with the golden file.
func TestConformance(t *testing.T) {
	names, err := conformanceNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if reason, ok := conformanceSkips[name]; ok {
				t.Skip(reason)
			}
			goldenPath := filepath.Join(conformanceDir, name+".golden")
			golden, err := os.ReadFile(goldenPath)
			if err != nil && !*update {
				t.Fatalf("%v (create it with: go test -run Conformance . -update)", err)
			}
			want := string(golden)
			outs := map[string]string{}
			for _, mode := range conformanceModes {
				for _, lang := range conformanceLangs {
					label := lang + "/" + mode.String()
					t.Run(label, func(t *testing.T) {
						got, err := runConformance(name, lang, mode)
						if err != nil {
							t.Fatalf("%s.%s in mode %s failed: %s\noutput so far:\n%s", name, lang, mode, err, got)
						}
						outs[label] = got
						if *update && lang == "star" && mode == executor.ModeSerial && got != want {
							if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
								t.Fatal(err)
							}
							t.Logf("rewrote %s", goldenPath)
							want = got
						}
						if got != want {
							t.Errorf("%s.%s in mode %s differs from %s:\n%s", name, lang, mode, goldenPath, lineDiff(want, got))
						}
					})
				}
			}
			// Name the cross-language difference directly, besides the
			// differences from the golden file.
			for _, mode := range conformanceModes {
				s, sok := outs["star/"+mode.String()]
				l, lok := outs["lua/"+mode.String()]
				if sok && lok && s != l {
					t.Errorf("%s: Starlark and Lua differ in mode %s (- star, + lua):\n%s", name, mode, lineDiff(s, l))
				}
			}
		})
	}
}

// conformanceNames lists the pairs: every NAME.star that is not a prelude.
func conformanceNames() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(conformanceDir, "*.star"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range paths {
		base := strings.TrimSuffix(filepath.Base(p), ".star")
		if strings.HasSuffix(base, ".prelude") {
			continue
		}
		names = append(names, base)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no conformance programs in %s", conformanceDir)
	}
	return names, nil
}

// TestConformanceFiles checks that the suite has no orphans: every program
// has its partner in the other language and a golden file, every golden
// file and prelude belongs to a pair, preludes come in pairs, and the pairs
// the suite promises are all there.
func TestConformanceFiles(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	isPair := func(name string) bool { return have[name+".star"] && have[name+".lua"] }
	for file := range have {
		ext := filepath.Ext(file)
		base := strings.TrimSuffix(file, ext)
		switch {
		case strings.HasSuffix(base, ".prelude") && (ext == ".star" || ext == ".lua"):
			name := strings.TrimSuffix(base, ".prelude")
			if !isPair(name) {
				t.Errorf("%s: prelude of no pair (want %s.star and %s.lua)", file, name, name)
			}
			if partner := base + "." + otherLang(ext[1:]); !have[partner] {
				t.Errorf("%s has no partner %s: both runs must see the same definitions", file, partner)
			}
		case ext == ".star" || ext == ".lua":
			if partner := base + "." + otherLang(ext[1:]); !have[partner] {
				t.Errorf("%s has no partner %s", file, partner)
			}
			if !have[base+".golden"] {
				t.Errorf("%s has no golden file %s.golden", file, base)
			}
		case ext == ".golden":
			if !isPair(base) {
				t.Errorf("%s: golden file of no pair", file)
			}
		default:
			t.Errorf("%s: unexpected file (want NAME.star, NAME.lua, NAME.golden, NAME.prelude.star, NAME.prelude.lua)", file)
		}
	}
	for _, name := range conformancePairs {
		if !isPair(name) {
			t.Errorf("pair %s is missing", name)
		}
	}
	for name := range conformanceSkips {
		if !isPair(name) {
			t.Errorf("skip entry for %s, which is no pair", name)
		}
	}
}

// TestConformanceDiff checks that the comparison can fail: different
// transcripts give a diff that shows both sides, equal ones none.
func TestConformanceDiff(t *testing.T) {
	if d := lineDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("lineDiff of equal texts = %q, want empty", d)
	}
	cases := []struct {
		a, b string
		want []string
	}{
		{"a\nb\nc\n", "a\nB\nc\n", []string{"  a", "- b", "+ B", "  c"}},
		{"ok=True\n", "ok=true\n", []string{"- ok=True", "+ ok=true"}},
		{"x\ny\n", "x\n", []string{"  x", "- y"}},
		{"x\n", "x\ny\n", []string{"  x", "+ y"}},
		{"same\n", "same", []string{"no newline at end"}},
	}
	for _, c := range cases {
		d := lineDiff(c.a, c.b)
		if d == "" {
			t.Errorf("lineDiff(%q, %q) is empty; want a difference", c.a, c.b)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(d, w) {
				t.Errorf("lineDiff(%q, %q) =\n%s\nwant it to contain %q", c.a, c.b, d, w)
			}
		}
	}
}

// lineDiff returns a line diff of a and b ("- " only in a, "+ " only in b,
// "  " in both), or "" when they are equal.
func lineDiff(a, b string) string {
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
