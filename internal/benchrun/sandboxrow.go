package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh/tools/process"
)

// Row 11 is what the operating-system sandbox of bash and run_code costs:
// the start-up of one confined command on each backend against the same
// command unconfined, timed in this process so that the figure is the sandbox's and not
// agentsh's start-up; and a scripted agent run of 200 shell commands
// through the real CLI, unconfined and in the workspace sandbox on each
// backend. A backend that cannot confine on this machine is reported as
// not available, with the reason, and is not a failure of the row.

// sandboxBackends are the backends row 11 measures, in the order their
// runs interleave after the unconfined one's, with their start-up targets.
var sandboxBackends = []struct {
	name   string
	target *bound
}{
	{"bwrap", &bound{v: 25, unit: " ms"}},
	{"landlock", &bound{v: 5, unit: " ms"}},
}

// offVariant is the name of the unconfined variant the others are
// compared with.
const offVariant = "off"

// projectSecret is what the project's .env holds: a confined command
// must not be able to print it.
const projectSecret = "BENCH_TOKEN=not-a-real-token-4e1"

// writeProject makes dir a small project as the sandbox finds one: a
// .git directory, which it keeps read-only, a .env it hides, a
// .env.example it does not, a few sources, and the out/ directory the
// agent run writes in. (Under Landlock no entry can be made next to
// .git, so the run's files go into a directory that exists; see
// docs/safety.md.)
func writeProject(dir string) error {
	files := map[string]string{
		".git/HEAD":                "ref: refs/heads/main\n",
		".git/config":              "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
		".git/refs/heads/.keep":    "",
		".gitignore":               "out/\n",
		".env":                     projectSecret + "\n",
		".env.example":             "BENCH_TOKEN=\n",
		"README.md":                "# bench\n\nA small project for the sandbox's benchmarks.\n",
		"go.mod":                   "module example.com/bench\n\ngo 1.24\n",
		"main.go":                  "package main\n\nfunc main() {}\n",
		"internal/app/app.go":      "package app\n\n// Name is the app's name.\nconst Name = \"bench\"\n",
		"internal/app/app_test.go": "package app\n",
		"docs/notes.md":            "notes\n",
		"out/.keep":                "",
	}
	for rel, data := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// confinedSandbox returns a Sandbox for dir confined by backend, or why
// the backend cannot confine here.
func confinedSandbox(dir, backend string) (*process.Sandbox, error) {
	sb, err := process.NewSandbox(dir, process.SandboxConfig{Backend: backend})
	if err != nil {
		return nil, err
	}
	if why := sb.Unavailable(); why != nil {
		return nil, why
	}
	return sb, nil
}

// unavailableReason is why, without the words every such reason starts
// with.
func unavailableReason(why error) string {
	s := strings.ReplaceAll(why.Error(), "\n", " ")
	return strings.TrimPrefix(s, process.ErrNoSandbox.Error()+": ")
}

// timeInProcess runs f once and returns its wall time and the CPU time
// this process and the children it waited for used meanwhile.
func timeInProcess(f func() error) (sample, error) {
	u0, s0 := ownUsage()
	start := time.Now()
	err := f()
	wall := time.Since(start)
	u1, s1 := ownUsage()
	return sample{wall: wall, user: u1 - u0, sys: s1 - s0}, err
}

// execVariant is a variant that runs req under profile p of sb in this
// process; a run fails unless the command exits 0.
func execVariant(name string, sb *process.Sandbox, p process.Profile, req process.ExecRequest) variant {
	return variant{
		name: name,
		p:    pipeline{{path: "Sandbox.Exec", args: append([]string{string(p)}, req.Args...)}},
		inProcess: func(ctx context.Context) (sample, error) {
			return timeInProcess(func() error {
				res, err := sb.Exec(ctx, p, req)
				if err != nil {
					return err
				}
				if res.ExitCode != 0 {
					return fmt.Errorf("%s exited %d: %s", strings.Join(req.Args, " "), res.ExitCode, cut(strings.TrimSpace(string(res.Output)), 300))
				}
				return nil
			})
		},
	}
}

// checkConfinement makes sure a variant is what its name says before its
// figures mean anything: confined, a command run by ops in dir cannot
// print the project's .env nor write into its .git; unconfined, it can
// do both.
func checkConfinement(ctx context.Context, ops process.ExecOps, confined bool, dir string) (string, error) {
	res, err := ops.Exec(ctx, process.ExecRequest{Args: []string{"sh", "-c", "cat .env; echo planted > .git/bench-planted"}})
	if err != nil {
		return "", fmt.Errorf("confinement check: %w", err)
	}
	planted := filepath.Join(dir, ".git", "bench-planted")
	_, statErr := os.Lstat(planted)
	os.Remove(planted)
	read, wrote := strings.Contains(string(res.Output), projectSecret), statErr == nil
	switch {
	case !confined && (!read || !wrote):
		return "", fmt.Errorf("confinement check: unconfined, a command could not print .env (printed: %v) or write into .git (wrote: %v): %q", read, wrote, cut(string(res.Output), 300))
	case !confined:
		return "reads .env, writes .git", nil
	case read:
		return "", errors.New("confinement check: a confined command printed .env")
	case wrote:
		return "", errors.New("confinement check: a confined command wrote into .git")
	}
	return ".env hidden, .git read-only", nil
}

// rowSandbox is row 11.
func rowSandbox(ctx context.Context, e *env) error {
	if err := sandboxStartup(ctx, e); err != nil {
		return err
	}
	return sandboxAgentRun(ctx, e)
}

// sandboxStartup times `true` run by Sandbox.Exec, unconfined and in the
// workspace profile of each backend, interleaved.
func sandboxStartup(ctx context.Context, e *env) error {
	dir := filepath.Join(e.tmp, "sandbox", "startup")
	if err := writeProject(dir); err != nil {
		return err
	}
	off, err := process.NewSandbox(dir, process.SandboxConfig{})
	if err != nil {
		return err
	}
	defer off.Close()
	req := process.ExecRequest{Args: []string{"true"}}
	vs := []variant{execVariant(offVariant, off, process.ProfileOff, req)}
	vs[0].verify = func(string) (string, error) { return checkConfinement(ctx, off.Ops(process.ProfileOff), false, dir) }
	checks := []check{{num: offVariant, metric: wallTime}}
	missing := map[string]error{}
	for _, b := range sandboxBackends {
		sb, err := confinedSandbox(dir, b.name)
		if err != nil {
			missing[b.name] = err
			continue
		}
		defer sb.Close()
		v := execVariant(b.name, sb, process.ProfileWorkspace, req)
		v.verify = func(string) (string, error) {
			return checkConfinement(ctx, sb.Ops(process.ProfileWorkspace), true, dir)
		}
		vs = append(vs, v)
	}
	for _, b := range sandboxBackends {
		checks = append(checks,
			check{num: b.name, metric: wallTime, target: b.target},
			check{num: b.name, den: offVariant, metric: wallTime},
			check{num: b.name, den: offVariant, metric: cpuTime})
	}
	caseName := `one "true" through Sandbox.Exec in this process, workspace profile vs off`
	if _, err := e.runCase(ctx, 11, caseName, vs, e.cfg.startupRuns, checks...); err != nil {
		return err
	}
	e.reportMissing(11, caseName, missing, checks)
	return nil
}

// sandboxAgentRun runs testdata/sandbox200.star through agentsh
// unconfined and in the workspace sandbox of each backend, each variant
// in a fresh copy of the project; every variant must print the same
// bytes.
func sandboxAgentRun(ctx context.Context, e *env) error {
	script := filepath.Join(e.cfg.repo, "internal", "benchrun", "testdata", "sandbox200.star")
	turns := strconv.Itoa(e.cfg.agentTurns)
	same := &sameOutput{want: fmt.Sprintf("%d commands, every output as expected", 4*e.cfg.agentTurns)}
	var vs []variant
	missing := map[string]error{}
	names := []string{offVariant}
	for _, b := range sandboxBackends {
		names = append(names, b.name)
	}
	for _, name := range names {
		dir := filepath.Join(e.tmp, "sandbox", "agent-"+name)
		if err := writeProject(dir); err != nil {
			return err
		}
		args := []string{"--sandbox", "off"}
		if name != offVariant {
			// The same probe as agentsh's own: a backend that cannot
			// confine here would have every command refused.
			sb, err := confinedSandbox(dir, name)
			if err != nil {
				missing[name] = err
				continue
			}
			sb.Close()
			args = []string{"--sandbox", "workspace", "--sandbox-backend", name}
		}
		v, ok := e.agentsh("new", name, dir, append(args, "run", script, turns)...)
		if !ok {
			return errors.New("agentsh was not built")
		}
		v.verify = same.verify(name)
		vs = append(vs, v)
	}
	var checks []check
	for _, b := range sandboxBackends {
		checks = append(checks,
			check{num: b.name, den: offVariant, metric: wallTime},
			check{num: b.name, den: offVariant, metric: cpuTime},
			check{num: b.name, den: offVariant, metric: peakRSS})
	}
	checks = append(checks, check{num: offVariant, metric: wallTime})
	for _, b := range sandboxBackends {
		checks = append(checks, check{num: b.name, metric: wallTime})
	}
	caseName := fmt.Sprintf("agentsh run sandbox200.star: a scripted agent, %d bash calls (%d turns × 4), --sandbox workspace vs off", 4*e.cfg.agentTurns, e.cfg.agentTurns)
	if _, err := e.runCase(ctx, 11, caseName, vs, e.cfg.runs, checks...); err != nil {
		return err
	}
	e.reportMissing(11, caseName, missing, checks)
	return nil
}

// reportMissing prints the variants that could not run here and why, and
// records each of their checks as not available: a machine without a
// backend is not a failure of the row.
func (e *env) reportMissing(rowID int, caseName string, missing map[string]error, checks []check) {
	for _, b := range sandboxBackends {
		why, ok := missing[b.name]
		if !ok {
			continue
		}
		verdict := "not available: " + unavailableReason(why)
		fmt.Fprintf(e.out, "    %s %s\n", b.name, verdict)
		for _, c := range checks {
			if c.num != b.name && c.den != b.name {
				continue
			}
			r := result{row: rowID, caseName: caseName, label: c.label(), verdict: verdict}
			if c.target != nil {
				r.target = c.target.String()
			}
			e.results = append(e.results, r)
		}
	}
}

// sameOutput checks that variants print the same bytes: the first
// variant checked sets the reference, and every output must hold want.
// Warm-ups run one at a time, so it needs no lock.
type sameOutput struct {
	want    string
	ref     []byte
	refName string
}

// verify is the check of variant name's output.
func (s *sameOutput) verify(name string) func(string) (string, error) {
	return func(outPath string) (string, error) {
		out, err := os.ReadFile(outPath)
		if err != nil {
			return "", err
		}
		return s.compare(name, out)
	}
}

func (s *sameOutput) compare(name string, out []byte) (string, error) {
	if !bytes.Contains(out, []byte(s.want)) {
		return "", fmt.Errorf("output does not say %q; it ends %q", s.want, tail(string(out), 300))
	}
	if s.ref == nil {
		s.ref, s.refName = out, name
		return fmt.Sprintf("%q (%d bytes)", s.want, len(out)), nil
	}
	if !bytes.Equal(out, s.ref) {
		got, want := splitLines(out), splitLines(s.ref)
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return strconv.Quote(cut(ls[i], 200))
			}
			return "(nothing)"
		}
		return "", fmt.Errorf("output differs from %s's at line %d: got %s, want %s", s.refName, i+1, line(got), line(want))
	}
	return fmt.Sprintf("the same %d bytes as %s", len(out), s.refName), nil
}

// splitLines is b's lines, each with its newline.
func splitLines(b []byte) []string {
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
