package policies_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// args for a valid call of each built-in tool, so validation passes and
// only the policies decide.
var validArgs = map[string]map[string]any{
	"read_file":  {"path": "README.md"},
	"list_dir":   {"path": "."},
	"glob":       {"pattern": "*.go"},
	"grep":       {"pattern": "TODO"},
	"write_file": {"path": "src/a.go", "content": "package a\n"},
	"edit_file":  {"path": "src/a.go", "old_string": "a", "new_string": "b"},
	"bash":       {"command": "ls"},
	"run_code":   {"language": "python3", "code": "print(1)"},
	"fetch":      {"url": "https://example.com"},
}

// TestReadOnlyPolicy: with read_only.star, a built-in tool runs when it
// is declared read-only, or runs its commands in the read-only sandbox
// (bash, run_code), for the model and the person; every other is denied.
func TestReadOnlyPolicy(t *testing.T) {
	p := load(t, "read_only.star")
	readOnly := map[string]bool{"read_file": true, "list_dir": true, "glob": true, "grep": true}
	sandboxed := map[string]bool{"bash": true, "run_code": true}
	for name, args := range validArgs {
		tool := p.ex.Registry().GetTool(name)
		if tool == nil {
			t.Fatalf("no built-in tool %s", name)
		}
		if tool.ReadOnly != readOnly[name] {
			t.Fatalf("%s: ReadOnly %v, want %v", name, tool.ReadOnly, readOnly[name])
		}
		for _, origin := range []core.Origin{core.OriginPerson, core.OriginModel} {
			r := p.decide(origin, name, args)
			switch {
			case readOnly[name] && r.Outcome != allow:
				t.Errorf("%s %s: %s (%s), want allow", origin, name, r.Outcome, r.Reason)
			case sandboxed[name] && (r.Outcome != allow || r.Sandbox != core.SandboxReadOnly):
				t.Errorf("%s %s: %s in %q (%s), want allow in the read-only sandbox", origin, name, r.Outcome, r.Sandbox, r.Reason)
			case !readOnly[name] && !sandboxed[name] && (r.Outcome != deny || r.Hook != "only_read_only_tools" ||
				!strings.Contains(r.Reason, "this session is read-only and "+name+" may change things; use a read-only tool (")):
				t.Errorf("%s %s: %s by %s (%s), want deny by only_read_only_tools", origin, name, r.Outcome, r.Hook, r.Reason)
			}
		}
	}
}

// TestAskBeforeWritePolicy: writes ask, naming the file, and reads run,
// also for the model, whose bash calls would ask by default.
func TestAskBeforeWritePolicy(t *testing.T) {
	p := load(t, "ask_before_write.star")
	for _, c := range []struct {
		tool   string
		args   map[string]any
		want   core.Verdict
		reason string
	}{
		{"write_file", validArgs["write_file"], ask, "write src/a.go"},
		{"edit_file", map[string]any{"path": "docs/x.md", "old_string": "a", "new_string": "b"}, ask, "edit docs/x.md"},
		{"bash", map[string]any{"command": "echo hi > src/out.txt"}, ask, "bash may change files: > src/out.txt: writes src/out.txt"},
		{"bash", map[string]any{"command": "sed -i s/a/b/ go.mod"}, ask, "bash may change files: sed -i s/a/b/ go.mod: writes go.mod"},
		{"bash", map[string]any{"command": "eval \"$x\""}, ask, "bash may change files: cannot check the command line run by eval"},
		{"bash", map[string]any{"command": "fd . -x rm"}, ask, "-x runs rm on what it finds"},
		{"bash", map[string]any{"command": "git log -5 | grep fix"}, allow, "bash only reads"},
		{"read_file", validArgs["read_file"], allow, ""},
	} {
		for _, origin := range []core.Origin{core.OriginPerson, core.OriginModel} {
			r := p.decide(origin, c.tool, c.args)
			if r.Outcome != c.want || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("%s %s %v: %s (%s), want %s with %q", origin, c.tool, c.args, r.Outcome, r.Reason, c.want, c.reason)
			}
		}
	}
}

// TestPoliciesCombine: deny_patterns' deny wins over ask_before_write's
// allow, and its ask over the allow.
func TestPoliciesCombine(t *testing.T) {
	p := load(t, denyPatterns, "ask_before_write.star")
	for command, want := range map[string]core.Verdict{
		"cat ~/.ssh/id_rsa": deny, // ask_before_write allows: it only reads
		"ls -la":            allow,
		"rm -rf build":      ask,
		"rm -rf ~":          deny,
	} {
		if r := p.decide(core.OriginModel, "bash", map[string]any{"command": command}); r.Outcome != want {
			t.Errorf("%q: %s by %s (%s), want %s", command, r.Outcome, r.Hook, r.Reason, want)
		}
	}
}

// TestCIAllowlistPolicy: ci_allowlist.star sets deny-unlisted, so only
// the listed calls run, for the person and the model, and nothing asks.
func TestCIAllowlistPolicy(t *testing.T) {
	p := load(t, "ci_allowlist.star")
	if got := p.ex.Permissions(); got != executor.PermissionsDenyUnlisted {
		t.Fatalf("permissions %s, want deny-unlisted", got)
	}
	for _, c := range []struct {
		tool   string
		args   map[string]any
		want   core.Verdict
		reason string
	}{
		{"read_file", validArgs["read_file"], allow, "read_file is on the CI list"},
		{"grep", validArgs["grep"], allow, "grep is on the CI list"},
		{"bash", map[string]any{"command": "go vet ./... && git diff --stat"}, allow, "every command is on the CI list"},
		{"write_file", map[string]any{"path": "out/report.md", "content": "ok"}, allow, "a report under out/"},
		{"write_file", validArgs["write_file"], deny, "no policy allowed write_file and permissions is deny-unlisted"},
		{"edit_file", validArgs["edit_file"], deny, "no policy allowed edit_file"},
		{"run_code", validArgs["run_code"], deny, "no policy allowed run_code"},
		{"fetch", validArgs["fetch"], deny, "no policy allowed fetch"},
		{"bash", map[string]any{"command": "go test ./... && rm -rf ~"}, deny, "rm is not on the CI list"},
		{"bash", map[string]any{"command": "git push"}, deny, "git runs only status, diff, log, show, rev-parse in CI"},
		{"bash", map[string]any{"command": "$CMD ./..."}, deny, "$CMD is not on the CI list"},
		{"bash", map[string]any{"command": "go test -exec ./evil ./..."}, deny, "-exec ./evil runs a program"},
	} {
		for _, origin := range []core.Origin{core.OriginPerson, core.OriginModel} {
			r := p.decide(origin, c.tool, c.args)
			if r.Outcome != c.want || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("%s %s %v: %s (%s), want %s with %q", origin, c.tool, c.args, r.Outcome, r.Reason, c.want, c.reason)
			}
		}
	}
}
