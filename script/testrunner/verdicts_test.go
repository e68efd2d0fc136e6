package testrunner

import (
	"context"
	"strings"
	"testing"
)

// TestVerdictAssertions: assert.allowed, asks and denied decide a call
// against the loaded policies without running its tool, and a failure
// names the outcome, the deciding hook and where it is defined.
func TestVerdictAssertions(t *testing.T) {
	report, sum, err := run(t, context.Background(), Options{}, "testdata/verdicts")
	if err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Passed: 2, Failed: 5}) {
		t.Errorf("summary %+v, want 2 passed, 5 failed\n%s", sum, report)
	}
	for _, want := range []string{
		"ok   testdata/verdicts/policy_test.lua test_passes",
		"ok   testdata/verdicts/policy_test.star test_passes",
		`assert.asks: bash {"command":"rm -rf ~"} as a person's call: got deny by no_rm at testdata/verdicts/policy_test.lua:5: recursive delete, want ask`,
		`assert.allowed: bash {"command":"rm -rf ~"} as a person's call: got deny by no_rm at testdata/verdicts/policy.star:3: recursive delete, want allow`,
		`assert.denied: bash {"command":"rm -rf /"} as a person's call: got deny by no_rm at testdata/verdicts/policy.star:3: recursive delete, want a reason containing "fork bomb"`,
		`assert.denied: ls is harmless: bash {"command":"ls"} as a person's call: got allow by default: a person's calls run unless a policy decides, want deny`,
		`assert.allowed: unknown origin "robot": want person, model, mcp or hook`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "a tool ran while deciding") {
		t.Errorf("a tool ran while its call was only being decided:\n%s", report)
	}
}

// TestHookErrorAssertions: a deny that is a hook's failure fails
// assert.denied, naming the hook, where it is and the error, unless the
// test expects it (hook_error = True), which in turn wants exactly such a
// deny; assert.allowed and assert.asks say the hook failed.
func TestHookErrorAssertions(t *testing.T) {
	report, sum, err := run(t, context.Background(), Options{}, "testdata/hookerrors")
	if err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Passed: 4, Failed: 6}) {
		t.Errorf("summary %+v, want 4 passed, 6 failed\n%s", sum, report)
	}
	for _, want := range []string{
		"ok   testdata/hookerrors/policy_test.star test_failure_expected",
		"ok   testdata/hookerrors/policy_test.lua test_failure_expected",
		"ok   testdata/hookerrors/verdict_test.star test_verdict",
		"ok   testdata/hookerrors/verdict_test.star test_bad_return_is_a_failure",
		`assert.denied: bash {"command":"rm -rf ~"} as a person's call: denied because the hook no_rm at testdata/hookerrors/policy_test.star:6 failed, not by its verdict: ` +
			`testdata/hookerrors/policy_test.star:7:25: key "comand" not in dict; fix the hook, or if the test expects it to fail, say assert.denied(..., hook_error = True)`,
		`assert.denied: bash {"command":"rm -rf ~"} as a person's call: denied because the hook no_rm at testdata/hookerrors/policy_test.lua:4 failed, not by its verdict: ` +
			`testdata/hookerrors/policy_test.lua:5: attempt to index a non-table object(nil) with key 'find'; fix the hook`,
		`assert.allowed: bash {"command":"ls"} as a person's call: got deny by no_rm at testdata/hookerrors/policy_test.star:6, which failed: testdata/hookerrors/policy_test.star:7:25: key "comand" not in dict, want allow`,
		`assert.asks: bash {"command":"ls"} as a model's call: got deny by no_rm at testdata/hookerrors/policy_test.star:6, which failed: `,
		`assert.denied: bash {"command":"sudo ls"} as a person's call: got deny by no_sudo at testdata/hookerrors/verdict_test.star:6: no sudo, want a deny from a hook that fails (hook_error = True)`,
		`assert.denied: never {} as a person's call: got deny by deny_never at testdata/hookerrors/policy_test.lua:21: never, want a deny from a hook that fails (hook_error = True)`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "a tool ran while deciding") {
		t.Errorf("a tool ran while its call was only being decided:\n%s", report)
	}
}
