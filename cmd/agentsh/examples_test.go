package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runInProcess runs the CLI in this process and returns stdout, stderr and
// the exit code.
func runInProcess(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli(args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

// TestExamples runs every script under scripts/: programs must match their
// golden transcript in testdata/examples, byte for byte, in every default
// mode and on repeated runs; a .lua program with a .star twin shares its
// golden, so the two languages must print the same transcript. Policies
// must load cleanly (their behaviour is checked by
// testdata/script/policies.txtar and their *_test files).
func TestExamples(t *testing.T) {
	root := repoRoot(t)
	var files, policies []string
	err := filepath.WalkDir(filepath.Join(root, "scripts"), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() || !isScript(path) || strings.HasSuffix(strings.TrimSuffix(path, filepath.Ext(path)), "_test"):
		case filepath.Base(filepath.Dir(path)) == "policies":
			policies = append(policies, path)
		default:
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || len(policies) == 0 {
		t.Fatalf("found %d programs and %d policies under scripts/; want some of each", len(files), len(policies))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Join(root, "scripts"), f)
		name := strings.ReplaceAll(strings.TrimSuffix(rel, filepath.Ext(rel)), string(filepath.Separator), "_")
		t.Run(rel, func(t *testing.T) {
			golden := filepath.Join(root, "testdata", "examples", name+".golden")
			var first string
			for _, mode := range []string{"serial", "parallel", "mixed", "serial"} {
				// Each run works in an empty directory of its own.
				out, errOut, code := runInProcess(t, "", "--workdir", t.TempDir(), "--mode", mode, "run", f)
				if code != 0 {
					t.Fatalf("--mode %s: exit %d\nstderr:\n%s", mode, code, errOut)
				}
				if first == "" {
					first = out
					continue
				}
				if out != first {
					t.Fatalf("--mode %s: transcript differs from the first run\ngot:\n%s\nwant:\n%s", mode, out, first)
				}
			}
			_, statErr := os.Stat(golden)
			if *update && (filepath.Ext(f) == ".star" || statErr != nil) { // a twin's golden is its .star's
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(first), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/agentsh -run TestExamples -update to create it)", err)
			}
			if first != string(want) {
				t.Errorf("transcript differs from %s\ngot:\n%s\nwant:\n%s", golden, first, want)
			}
		})
	}
	for _, p := range policies {
		t.Run("policies/"+filepath.Base(p), func(t *testing.T) {
			out, errOut, code := runInProcess(t, "", "--load", p, "-c", "None")
			if code != 0 || out != "" || errOut != "" {
				t.Fatalf("loading %s: exit %d, stdout %q, stderr %q; want a clean load", p, code, out, errOut)
			}
		})
	}
}

// isScript reports whether path is a Starlark or Lua file.
func isScript(path string) bool {
	ext := filepath.Ext(path)
	return ext == ".star" || ext == ".lua"
}

// The quickstart's count of executed calls is true: only tools the script
// defines appear, and each count is what the tools themselves did —
// save_note numbers its notes, greet says "Hello, " once per run. A
// middleware runs for a call the innermost step then refuses (an unknown
// name, arguments that fail the schema), so counting before next(call)
// would count calls that never ran.
func TestQuickstartCountsOnlyExecutedCalls(t *testing.T) {
	root := repoRoot(t)
	for _, f := range []string{"quickstart.star", "quickstart.lua"} {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join(root, "scripts", f)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defined := map[string]bool{}
			for _, m := range regexp.MustCompile(`tool[({]\s*name = "(\w+)"`).FindAllStringSubmatch(string(src), -1) {
				defined[m[1]] = true
			}
			out, errOut, code := runInProcess(t, "", "--workdir", t.TempDir(), "run", path)
			if code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", code, errOut)
			}
			counts := map[string]int{}
			for _, m := range regexp.MustCompile(`(?m)^(executed\.\w+|notes) (\d+)$`).FindAllStringSubmatch(out, -1) {
				n, _ := strconv.Atoi(m[2])
				counts[m[1]] = n
			}
			for key := range counts {
				if name, ok := strings.CutPrefix(key, "executed."); ok && !defined[name] {
					t.Errorf("%s counts executions of %q, which the script never defines (tools: %v)", f, name, defined)
				}
			}
			if got, want := counts["executed.greet"], strings.Count(out, "Hello, "); got != want {
				t.Errorf("executed.greet %d, but greet greeted %d times", got, want)
			}
			if got, want := counts["executed.save_note"], counts["notes"]; got != want || want == 0 {
				t.Errorf("executed.save_note %d, but save_note saved %d notes", got, want)
			}
		})
	}
}
