package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// policyLoads is --load for every shipped policy of the checkout at root
// (scripts/policies, tests left out), as scripts/bench/hook.sh loads them.
func policyLoads(root string) ([]string, error) {
	var loads []string
	for _, ext := range []string{"*.star", "*.lua"} {
		files, err := filepath.Glob(filepath.Join(root, "scripts", "policies", ext))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if strings.Contains(filepath.Base(f), "_test.") {
				continue
			}
			loads = append(loads, "--load", f)
		}
	}
	if len(loads) == 0 {
		return nil, fmt.Errorf("no policies under %s/scripts/policies", root)
	}
	return loads, nil
}

// wantOutput checks that a start-up variant printed what it should: one
// of substrs.
func wantOutput(substrs ...string) func(string) (string, error) {
	return func(outPath string) (string, error) {
		b, err := os.ReadFile(outPath)
		if err != nil {
			return "", err
		}
		for _, substr := range substrs {
			if strings.Contains(string(b), substr) {
				return fmt.Sprintf("printed %q", substr), nil
			}
		}
		return "", fmt.Errorf("output %q does not hold %q", cut(string(b), 300), strings.Join(substrs, `" or "`))
	}
}

// rowStartup times the short commands that run before every call another
// agent makes, from a neutral directory. Each revision loads its own
// shipped policies; hello.star is the working tree's for every variant.
func rowStartup(ctx context.Context, e *env) error {
	dir := filepath.Join(e.tmp, "startup")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	minstar := filepath.Join(e.tmp, "bin", "minstar")
	if _, err := runGo(ctx, e.cfg.repo, "build", "-o", minstar, "./internal/benchrun/testdata/minstar"); err != nil {
		return err
	}
	hello := filepath.Join(e.cfg.repo, "scripts", "bench", "hello.star")
	runs := e.cfg.startupRuns

	var vs []variant
	for _, rev := range e.revs {
		if v, ok := e.agentsh(rev, rev, dir, "run", hello); ok {
			v.verify = wantOutput("hello, world\n")
			vs = append(vs, v)
		}
	}
	vs = append(vs, variant{name: "minstar", p: pipeline{{path: minstar, dir: dir, args: []string{hello}}}, verify: wantOutput("hello, world\n")})
	if _, err := e.runCase(ctx, 9, "agentsh run hello.star vs go.starlark.net alone (minstar)", vs, runs,
		check{num: "new", den: "minstar", metric: wallTime, target: ratioTarget(1.5)},
		check{num: "new", den: "base", metric: wallTime},
		check{num: "new", metric: wallTime}); err != nil {
		return err
	}

	event := fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`, dir)
	var explain, hook []variant
	for _, rev := range e.revs {
		loads, err := policyLoads(e.roots[rev])
		if err != nil {
			return err
		}
		// The policies of a revision before the sandbox deny the call
		// (read_only.star denied bash); since, read_only.star runs it in
		// the read-only sandbox, which another agent's call cannot have,
		// so the hook asks.
		if v, ok := e.agentsh(rev, rev, dir, append([]string{"explain", "bash", `{"command":"git status"}`}, loads...)...); ok {
			v.p[0].okCodes = []int{1} // exit 1: the policies deny the call
			v.verify = wantOutput("denied by", "would run")
			explain = append(explain, v)
		}
		if v, ok := e.agentsh(rev, rev, dir, append([]string{"hook", "claude-code"}, loads...)...); ok {
			v.p[0].stdin = event + "\n"
			v.verify = wantOutput(`"permissionDecision":"deny"`, `"permissionDecision":"ask"`)
			hook = append(hook, v)
		}
	}
	if _, err := e.runCase(ctx, 9, "agentsh explain bash {git status}, shipped policies", explain, runs,
		check{num: "new", metric: wallTime},
		check{num: "new", den: "base", metric: wallTime}); err != nil {
		return err
	}
	_, err := e.runCase(ctx, 9, "agentsh hook claude-code, PreToolUse Bash, shipped policies", hook, runs,
		check{num: "new", metric: wallTime, target: &bound{v: 8, unit: " ms"}},
		check{num: "new", den: "base", metric: wallTime})
	return err
}
