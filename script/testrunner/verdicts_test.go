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
