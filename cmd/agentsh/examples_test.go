package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
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
