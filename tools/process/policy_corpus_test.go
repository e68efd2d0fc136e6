package process_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/bashcmd"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/process/policytest"
)

// corpusPolicies are the policies every bypass must be refused by.
var corpusPolicies = map[string]process.ShellPolicy{
	"block":       {Block: policytest.Block},
	"allow":       {Allow: policytest.Allow},
	"allow-small": {Allow: []string{"ls", "echo"}},
}

// runBash runs command with bash -c in dir (HOME there too, a minimal
// environment).
func runBash(t *testing.T, dir, command string) process.ExecResult {
	t.Helper()
	ex := process.NewLocalExec(dir)
	ex.BaseEnv = []string{"PATH=" + process.DefaultPath, "HOME=" + dir}
	res, err := ex.Exec(context.Background(), process.ExecRequest{Args: []string{"bash", "-c", command}, Timeout: testwait.Bound(30 * time.Second)})
	if err != nil {
		t.Fatalf("run %q: %v", command, err)
	}
	return res
}

// TestShellBypassCorpus proves each bypass of the corpus: run directly
// with bash -c, it runs touch; checked, every policy refuses it.
func TestShellBypassCorpus(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found; the bypass corpus needs it")
	}
	payloads := policytest.Bypasses()
	if len(payloads) < 60 {
		t.Fatalf("the corpus has %d payloads, want at least 60", len(payloads))
	}
	for _, p := range payloads {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			if prog := p.Missing(); prog != "" {
				t.Skipf("%s not found; this payload needs it", prog)
			}
			dir := t.TempDir()
			policytest.Setup(t, dir)
			if res := runBash(t, dir, p.Command); !policytest.Ran(dir) {
				t.Fatalf("under bash -c the payload did not create %s, so it bypasses nothing; output:\n%s", policytest.Marker, res.Output)
			}
			for name, pol := range corpusPolicies {
				err := pol.Check(p.Command)
				if err == nil {
					t.Errorf("%s: Check = nil, want a refusal", name)
					continue
				}
				if !errors.Is(err, process.ErrRefused) {
					t.Errorf("%s: Check = %v, which does not wrap ErrRefused", name, err)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "shell policy: ") || msg != strings.ToLower(msg[:1])+msg[1:] {
					t.Errorf("%s: Check = %q, want a lowercase message starting with %q", name, msg, "shell policy: ")
				}
			}
		})
	}
}

// TestShellHarmlessCorpus checks that failing closed does not refuse
// ordinary command lines, and that they do run.
func TestShellHarmlessCorpus(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	for _, p := range policytest.Harmless() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			for _, name := range []string{"block", "allow"} {
				if err := corpusPolicies[name].Check(p.Command); err != nil {
					t.Errorf("%s: Check = %v, want nil", name, err)
				}
			}
			dir := t.TempDir()
			policytest.Setup(t, dir)
			if res := runBash(t, dir, p.Command); res.ExitCode != 0 {
				t.Errorf("under bash -c the command line exited with %d; output:\n%s", res.ExitCode, res.Output)
			}
			if policytest.Ran(dir) {
				t.Errorf("the command line created %s", policytest.Marker)
			}
		})
	}
}

// TestParseCorpus reads the corpus with the analysis the policy is built
// on: every bypass lists touch or gives a reason, every harmless command
// line is read in full, and nothing panics.
func TestParseCorpus(t *testing.T) {
	for _, p := range policytest.Bypasses() {
		a := bashcmd.Parse(p.Command)
		touch := false
		for _, c := range a.Commands {
			touch = touch || c.Name == "touch"
		}
		if !touch && a.OK() {
			t.Errorf("%s: Parse lists no touch and gives no reason", p.Name)
		}
	}
	for _, p := range policytest.Harmless() {
		if a := bashcmd.Parse(p.Command); !a.OK() {
			t.Errorf("%s: Parse gives the reasons %q, want none", p.Name, a.Unknown)
		}
	}
}
