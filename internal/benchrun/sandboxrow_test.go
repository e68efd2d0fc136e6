package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/process"
)

// TestMeasureInProcess: variants timed in this process run in the same
// order as commands (one warm-up each, then round-robin), their pipeline
// is only a label and is never started, and one whose warm-up fails is
// dropped while the others are timed.
func TestMeasureInProcess(t *testing.T) {
	var order []string
	logs := func(name string, fail bool) variant {
		return variant{name: name, p: pipeline{{path: filepath.Join(t.TempDir(), "never-started")}},
			inProcess: func(context.Context) (sample, error) {
				return timeInProcess(func() error {
					order = append(order, name)
					if fail {
						return errors.New("cannot run here")
					}
					return nil
				})
			}}
	}
	vs := []variant{logs("off", false), logs("bwrap", false), logs("broken", true), logs("landlock", false)}
	ms, err := measure(context.Background(), direct, vs, 3, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"off", "bwrap", "broken", "landlock", "off", "bwrap", "landlock", "off", "bwrap", "landlock", "off", "bwrap", "landlock"}
	if !slices.Equal(order, want) {
		t.Errorf("runs happened in the order %v, want %v", order, want)
	}
	for i, n := range []int{3, 3, 0, 3} {
		if len(ms[i].samples) != n {
			t.Errorf("%s: %d timed runs, want %d", vs[i].name, len(ms[i].samples), n)
		}
	}
	if ms[2].err == nil || !strings.Contains(ms[2].err.Error(), "warm-up: cannot run here") {
		t.Errorf("broken variant: error %v, want its warm-up failure", ms[2].err)
	}
}

// TestTimeInProcess: the CPU of a child the work waited for is counted,
// as is the work's own wall time.
func TestTimeInProcess(t *testing.T) {
	needPrograms(t, "sh")
	sb, err := process.NewSandbox(t.TempDir(), process.SandboxConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := timeInProcess(func() error {
		res, err := sb.Exec(context.Background(), process.ProfileOff, process.ExecRequest{Args: []string{"sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"}})
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Output)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.wall <= 0 || s.user+s.sys <= 0 {
		t.Errorf("a child counting to 30000: wall %v, CPU %v + %v; want both above 0", s.wall, s.user, s.sys)
	}
	if _, err := timeInProcess(func() error { return errors.New("no") }); err == nil {
		t.Error("the work's error was lost")
	}
}

// TestCheckConfinement: a variant that says it is confined but lets a
// command read .env or write into .git fails its check, and an
// unconfined one that cannot fails too; a real sandbox passes.
func TestCheckConfinement(t *testing.T) {
	needPrograms(t, "sh", "cat")
	ctx := context.Background()
	dir := t.TempDir()
	if err := writeProject(dir); err != nil {
		t.Fatal(err)
	}
	off, err := process.NewSandbox(dir, process.SandboxConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if note, err := checkConfinement(ctx, off.Ops(process.ProfileOff), false, dir); err != nil || note != "reads .env, writes .git" {
		t.Errorf("unconfined: got %q, %v; want it to read .env and write .git", note, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git", "bench-planted")); !os.IsNotExist(err) {
		t.Errorf("the check left its file in .git: %v", err)
	}
	if _, err := checkConfinement(ctx, off.Ops(process.ProfileOff), true, dir); err == nil || !strings.Contains(err.Error(), "printed .env") {
		t.Errorf("an unconfined run claimed as confined: got %v, want the check to fail on .env", err)
	}
	// .env gone: what is left to catch is the write into .git.
	if err := os.Remove(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
	if _, err := checkConfinement(ctx, off.Ops(process.ProfileOff), true, dir); err == nil || !strings.Contains(err.Error(), "wrote into .git") {
		t.Errorf("an unconfined run claimed as confined, no .env: got %v, want the check to fail on .git", err)
	}
	if _, err := checkConfinement(ctx, off.Ops(process.ProfileOff), false, dir); err == nil || !strings.Contains(err.Error(), "could not print .env") {
		t.Errorf("unconfined without a .env: got %v, want the check to say it could not print it", err)
	}
	if err := writeProject(dir); err != nil {
		t.Fatal(err)
	}
	for _, b := range sandboxBackends {
		sb, err := confinedSandbox(dir, b.name)
		if err != nil {
			t.Logf("%s: not available here: %v", b.name, err)
			continue
		}
		if note, err := checkConfinement(ctx, sb.Ops(process.ProfileWorkspace), true, dir); err != nil || note != ".env hidden, .git read-only" {
			t.Errorf("%s, workspace: got %q, %v; want it confined", b.name, note, err)
		}
	}
}

// TestSandboxStartup runs row 11's start-up case in a tiny configuration:
// the unconfined variant is timed; each backend is timed with its target
// checked, or reported as not available with the reason, and is not a
// failure either way.
func TestSandboxStartup(t *testing.T) {
	needPrograms(t, "sh", "cat", "true")
	var out bytes.Buffer
	e := &env{cfg: config{startupRuns: 3}, out: &out, tmp: t.TempDir(), runner: direct}
	if err := sandboxStartup(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if len(e.failed) > 0 {
		t.Errorf("failed: %v\n%s", e.failed, text)
	}
	if !strings.Contains(text, "reads .env, writes .git") || !strings.Contains(text, "3/3") {
		t.Errorf("the unconfined variant was not checked and timed 3 times:\n%s", text)
	}
	verdicts := map[string]string{}
	for _, r := range e.results {
		if r.row != 11 {
			t.Errorf("result of row %d, want 11: %+v", r.row, r)
		}
		verdicts[r.label] = r.verdict
	}
	probe := t.TempDir()
	for _, b := range sandboxBackends {
		label := b.name + " wall"
		_, why := confinedSandbox(probe, b.name)
		switch v := verdicts[label]; {
		case why != nil:
			if want := "not available: " + unavailableReason(why); v != want || !strings.Contains(text, b.name+" "+want) {
				t.Errorf("%s cannot confine here (%v): verdict %q, want %q printed and recorded", b.name, why, v, want)
			}
		case v != "met" && v != "missed":
			t.Errorf("%s confines here: verdict %q, want met or missed against %s", b.name, v, b.target)
		case !strings.Contains(text, b.name+"/off wall"):
			t.Errorf("%s: no ratio to the unconfined run:\n%s", b.name, text)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", text)
	}
}

// TestSameOutput: the first output sets the reference; the same bytes
// pass, a difference fails naming its line, and an output without the
// line every run must print fails even as the reference.
func TestSameOutput(t *testing.T) {
	s := &sameOutput{want: "8 commands, every output as expected"}
	ok := []byte("turn 1\n[bash] a\n8 commands, every output as expected\n")
	if _, err := s.compare("off", []byte("turn 1\nrefused\n")); err == nil || !strings.Contains(err.Error(), `does not say "8 commands`) {
		t.Errorf("an output without the verdict line: got %v, want it refused", err)
	}
	if note, err := s.compare("off", ok); err != nil || !strings.Contains(note, "(53 bytes)") {
		t.Errorf("the reference: got %q, %v", note, err)
	}
	if note, err := s.compare("bwrap", bytes.Clone(ok)); err != nil || note != "the same 53 bytes as off" {
		t.Errorf("the same bytes: got %q, %v; want them accepted", note, err)
	}
	other := []byte("turn 1\n[bash] b\n8 commands, every output as expected\n")
	_, err := s.compare("landlock", other)
	if err == nil || !strings.Contains(err.Error(), `differs from off's at line 2: got "[bash] b\n", want "[bash] a\n"`) {
		t.Errorf("a different output: got %v, want line 2 named", err)
	}
	_, err = s.compare("landlock", append(bytes.Clone(ok), "extra\n"...))
	if err == nil || !strings.Contains(err.Error(), `line 4: got "extra\n", want (nothing)`) {
		t.Errorf("a longer output: got %v, want the extra line named", err)
	}
}
