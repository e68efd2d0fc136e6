package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/policies.md shows agentsh explain under deny_patterns.star and a
// test of it: the output is the one agentsh prints, and the test passes.
func TestPoliciesDocExamples(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```\n(\\$ agentsh --load trim.star .*?)```").FindStringSubmatch(string(doc))
	test := regexp.MustCompile("(?s)```python\n(load\\(\"deny_patterns.star\".*?)```").FindStringSubmatch(string(doc))
	if block == nil || test == nil {
		t.Fatal("docs/policies.md has no explain example under deny_patterns.star, or no test of it")
	}
	// The files as the example names them, in a directory of their own.
	dir := t.TempDir()
	policy, err := os.ReadFile(filepath.Join(root, "scripts", "policies", "deny_patterns.star"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"trim.star":                           `before(lambda call: rewrite({"command": call.args["command"].strip()}), tools = ["bash"], name = "trim")` + "\n",
		"scripts/policies/deny_patterns.star": string(policy),
		"scripts/policies/home_test.star":     test[1],
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	lines := strings.SplitN(block[1], "\n", 3)
	var out, errb bytes.Buffer
	cli([]string{"--workdir", dir, "--load", "trim.star", "--load", "scripts/policies/deny_patterns.star",
		"explain", "bash", `{"command": "  rm -rf ~  "}`}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	if !strings.Contains(lines[0]+lines[1], `explain bash '{"command": "  rm -rf ~  "}'`) {
		t.Fatalf("the example's command changed: %q", lines[:2])
	}
	if got := out.String(); got != lines[2] {
		t.Errorf("agentsh explain prints\n%s\nthe docs say\n%s", got, lines[2])
	}
	out.Reset()
	if code := cli([]string{"test", "scripts/policies/home_test.star"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
		t.Errorf("the documented test fails: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
