package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The policy a newcomer writes first — allow writes whose path starts
// with "src/", by tool name — is correct because paths are canonical:
// no spelling of a path outside src/ (dotted, quoted, absolute, through a
// link, sent by another agent) starts with "src/" by the time the policy
// reads it, and every spelling of a path inside does. Checked for the
// first example of docs/policies.md and the policy of
// scripts/agent_demo.star, as they are written there.
func TestNaturalPolicyHoldsForEverySpelling(t *testing.T) {
	root := repoRoot(t)
	docs, err := os.ReadFile(filepath.Join(root, "docs", "policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile(filepath.Join(root, "scripts", "agent_demo.star"))
	if err != nil {
		t.Fatal(err)
	}
	policies := map[string]string{
		"docs/policies.md":        regexp.MustCompile("(?s)```python\n(def writes\\(call\\):.*?)```").FindStringSubmatch(string(docs))[1],
		"scripts/agent_demo.star": regexp.MustCompile(`(?s)def writes_in_src\(call\):.*?\nbefore\(writes_in_src[^\n]*\n`).FindString(string(demo)),
	}
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	for _, f := range []string{"src/main.go", "README.md", "lib/x.go"} {
		p := filepath.Join(project, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"src/readme": "../README.md", "src/up": "..", "src/lib": "../lib", "docs": "src"} {
		if err := os.Symlink(target, filepath.Join(project, link)); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(p string) string { return filepath.Join(project, p) }
	inside := []string{"src/new.go", "./src/new.go", "src//new.go", "src/./new.go", abs("src/new.go"), `"src\57new.go"`,
		`"\x73rc/new.go"`, "lib/../src/new.go", "docs/new.go", "src/up/src/new.go"}
	outside := []string{"README.md", "src/../README.md", "./src/../README.md", "src/./../README.md", "src//../README.md",
		`"src\57..\57README.md"`, `"src/\x2e\x2e/README.md"`, abs("src/../README.md"), abs("README.md"), "src/readme",
		"src/up/README.md", "src/lib/x.go", "srcs/new.go", "src"}
	for name, src := range policies {
		if src == "" {
			t.Fatalf("%s: the policy was not found", name)
		}
		policy := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".star")
		if err := os.WriteFile(policy, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			paths []string
			allow bool
		}{{inside, true}, {outside, false}} {
			for _, p := range want.paths {
				for _, tool := range []string{"write_file", "edit_file"} {
					fields := map[string]string{"path": p, "content": "x"}
					if tool == "edit_file" {
						fields = map[string]string{"path": p, "old_string": "package", "new_string": "package"}
					}
					args, _ := json.Marshal(fields)
					var out, errb bytes.Buffer
					cli([]string{"--workdir", project, "--load", policy, "--as", "model", "--json", "explain", tool, string(args)},
						stdio{in: strings.NewReader(""), out: &out, err: &errb})
					var r struct{ Outcome string }
					json.Unmarshal(lastLine(out.Bytes()), &r)
					if (r.Outcome == "allow") != want.allow {
						t.Errorf("%s: %s %s: %s, want allowed %v\n%s", name, tool, p, r.Outcome, want.allow, out.String())
					}
				}
				// Claude Code sends the same write with its absolute path.
				if !strings.HasPrefix(p, `"`) {
					fp := p
					if !filepath.IsAbs(p) {
						fp = filepath.Join(project, p)
					}
					ev, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": project,
						"tool_name": "Write", "tool_input": map[string]string{"file_path": fp, "content": "x"}})
					t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
					var out bytes.Buffer
					cli([]string{"hook", "claude-code", "--workdir", project, "--load", policy}, stdio{in: bytes.NewReader(ev), out: &out, err: &bytes.Buffer{}})
					allowed := strings.Contains(out.String(), `"permissionDecision":"allow"`)
					if allowed != want.allow {
						t.Errorf("%s: Claude Code Write %s: %s, want allowed %v", name, fp, out.String(), want.allow)
					}
				}
			}
		}
	}
}
