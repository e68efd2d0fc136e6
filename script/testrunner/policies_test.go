package testrunner

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools"
)

// TestShippedPolicies runs the tests next to the example policies in
// scripts/policies: they must all pass, and there must be some.
func TestShippedPolicies(t *testing.T) {
	files, err := Find([]string{"../../scripts/policies"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"audit_log_test.star", "deny_patterns_test.star", "retry_timeout_test.star", "rewrite_args_test.star"} {
		if !strings.Contains(strings.Join(files, " "), "/"+want) {
			t.Errorf("Find did not return %s among %v", want, files)
		}
	}
	// On bare hosts, and on hosts with the built-in tools, as agentsh test
	// makes them by default: the stand-ins replace the built-in tools but
	// keep their schemas, so the tests must call them with valid arguments.
	workdir := t.TempDir()
	for _, tc := range []struct {
		name    string
		newHost func(io.Writer) (*script.Host, func(), error)
	}{
		{"bare", nil},
		{"builtins", func(out io.Writer) (*script.Host, func(), error) {
			ex := executor.New(nil, executor.WithValidateArguments(true))
			if err := ex.Install(context.Background(), tools.NewExtension(tools.ExtensionConfig{WorkingDir: workdir})); err != nil {
				return nil, nil, err
			}
			AssumeSandbox(ex) // as agentsh test does
			return script.NewHost(ex, out), func() { _ = ex.Close() }, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report, sum, err := run(t, context.Background(), Options{NewHost: tc.newHost}, "../../scripts/policies")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failed != 0 || sum.Skipped != 0 || sum.Passed < 8 {
				t.Errorf("summary %+v, want no failures or skips and at least 8 passed\n%s", sum, report)
			}
			if !strings.HasSuffix(report, sum.String()+"\n") {
				t.Errorf("report does not end with the summary line:\n%s", report)
			}
		})
	}
}
