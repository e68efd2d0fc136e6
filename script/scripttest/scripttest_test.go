package scripttest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
)

// TestLineDiff checks that the comparison can fail: different
// transcripts give a diff that shows both sides, equal ones none.
func TestLineDiff(t *testing.T) {
	if d := LineDiff("a\nb\n", "a\nb\n"); d != "" {
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
		d := LineDiff(c.a, c.b)
		if d == "" {
			t.Errorf("LineDiff(%q, %q) is empty; want a difference", c.a, c.b)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(d, w) {
				t.Errorf("LineDiff(%q, %q) =\n%s\nwant it to contain %q", c.a, c.b, d, w)
			}
		}
	}
}

// echoInterp is a language whose programs print themselves, line by line.
type echoInterp struct{ host *script.Host }

func (e echoInterp) LoadFile(ctx context.Context, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "fail" {
			return &script.Error{File: path, Line: 1, Msg: "failed", Backtrace: "trace"}
		}
		e.host.Print(line)
	}
	return nil
}
func (echoInterp) Run(context.Context, string, []byte) error            { return nil }
func (echoInterp) Eval(context.Context, string, []byte) (string, error) { return "", nil }
func (echoInterp) ReadChunk(func() ([]byte, error)) ([]byte, error)     { return nil, nil }
func (echoInterp) Complete(string, int) (int, []string)                 { return 0, nil }
func (echoInterp) Functions() []string                                  { return nil }
func (echoInterp) CallGlobal(context.Context, string) error             { return nil }
func (echoInterp) Close() error                                         { return nil }

func init() {
	for _, name := range []string{"echo", "echo2"} {
		script.RegisterLanguage(script.Language{Name: name, Extensions: []string{"." + name},
			New: func(h *script.Host, _ script.Options) script.Interp { return echoInterp{h} }})
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRun: a program runs after the prelude of another language (never
// its own), and failures, missing programs and preludes of no registered
// language are errors.
func TestRun(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p.golden": "pre\nmain\n", "p.echo": "main\n", "p.echo2": "main\n",
		"p.prelude.echo2": "pre\n", "p.prelude.echo": "pre\n",
		"bad.golden": "", "bad.echo": "fail\n",
		"lone.golden": "", "lone.echo2": "x\n",
		"odd.golden": "", "odd.echo": "x\n", "odd.prelude.nolang": "x\n",
	})
	got, err := Run(dir, "p", "echo", executor.ModeParallel)
	if err != nil || got != "pre\nmain\n" {
		t.Errorf("Run(p, echo) = %q, %v; want the echo2 prelude, then the program", got, err)
	}
	if got, err := Run(dir, "p", "echo2", executor.ModeSerial); err != nil || got != "pre\nmain\n" {
		t.Errorf("Run(p, echo2) = %q, %v", got, err)
	}
	if _, err := Run(dir, "bad", "echo", executor.ModeSerial); err == nil || err.Error() != "trace\n"+filepath.Join(dir, "bad.echo")+":1: failed" {
		t.Errorf("Run(bad) error %v, want the script error with its backtrace", err)
	}
	if _, err := Run(dir, "lone", "echo", executor.ModeSerial); err == nil || !strings.Contains(err.Error(), "program lone has no echo version") {
		t.Errorf("Run(lone) error %v", err)
	}
	if _, err := Run(dir, "odd", "echo", executor.ModeSerial); err == nil || !strings.Contains(err.Error(), "in no registered language") {
		t.Errorf("Run(odd) error %v", err)
	}
	if _, err := Run(dir, "p", "cobol", executor.ModeSerial); err == nil || !strings.Contains(err.Error(), `unknown script language "cobol"`) {
		t.Errorf("Run(cobol) error %v", err)
	}
	names, err := Programs(dir)
	if err != nil || strings.Join(names, " ") != "bad lone odd p" {
		t.Errorf("Programs = %v, %v", names, err)
	}
	if _, err := Programs(t.TempDir()); err == nil {
		t.Errorf("Programs of an empty directory succeeded")
	}
}

// TestFixtures: the Go tools every program can call are there and valid.
func TestFixtures(t *testing.T) {
	reg := core.NewRegistry()
	if err := reg.RegisterTools(Fixtures()...); err != nil {
		t.Fatal(err)
	}
	want := "go_echo go_panic go_safe go_sleep go_undeclared go_unsafe"
	if got := strings.Join(reg.ToolNames(), " "); got != want {
		t.Errorf("fixtures %s, want %s", got, want)
	}
}
