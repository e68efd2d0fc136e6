package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/internal/pgtest"
	"github.com/agentsh/agentsh/tools/process"
)

var update = flag.Bool("update", false, "rewrite golden files and txtar expectations")

// TestMain lets the test binary act as agentsh: testscript runs it under
// that name, and tests that need exact exit codes or signals run it with
// AGENTSH_MAIN=1.
func TestMain(m *testing.M) {
	agentsh.Init()
	if os.Getenv("AGENTSH_MAIN") == "1" {
		if err := installFault(os.Getenv("AGENTSH_TEST_FAULT")); err != nil {
			fmt.Fprintf(os.Stderr, "agentsh test: AGENTSH_TEST_FAULT: %v\n", err)
			os.Exit(exitUsage)
		}
		os.Exit(cli(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
	}
	testscript.Main(privateState(m), map[string]func(){
		"agentsh": func() { os.Exit(cli(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})) },
	})
}

// privateState gives the tests that run agentsh in this process a state
// directory of their own (sessions, history), removed when they end. It
// runs only in the top-level test process, not when the binary acts as
// agentsh.
func privateState(m *testing.M) testscript.TestingM { return stateM{m} }

type stateM struct{ m *testing.M }

func (s stateM) Run() int {
	waitersOverlap()
	dir, err := os.MkdirTemp("", "agentsh-test-state-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", dir)
	return pgtest.Run(s.m) // the tests against Postgres share one cluster
}

// waitersOverlap lets more parallel tests run at once than there are
// cores, unless -test.parallel says otherwise: most of this package's
// parallel tests wait — on a real client's model turns and hooks, on
// Node.js starting, on a grace period before a kill — and use little CPU
// meanwhile.
func waitersOverlap() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}

// repoRoot is the module root, two levels up from this package.
func repoRoot(t testing.TB) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestScripts runs the CLI golden scripts in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	t.Parallel() // the scripts run agentsh processes, in parallel
	root := repoRoot(t)
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join(root, "testdata", "script"),
		UpdateScripts: *update,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "race":
				return raceEnabled, nil
			case "landlock":
				return landlockConfines(t), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", root)
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			return nil
		},
	})
}

// landlockConfines reports whether the sandbox's Landlock backend can
// confine commands here (the kernel's Landlock ABI is recent enough).
func landlockConfines(t *testing.T) bool {
	box, err := process.NewSandbox(t.TempDir(), process.SandboxConfig{Backend: "landlock"})
	return err == nil && box.Unavailable() == nil
}
