package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README names only files that exist, and its Go embedding example's
// policy is the one the executor package's example compiles and runs.
func TestREADME(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	paths := regexp.MustCompile(`(?:scripts|docs|testdata)/[\w./-]*\.(?:star|lua|md|golden)\b`).FindAllString(readme, -1)
	// A file the example commands run, as in "agentsh ... run FILE".
	for _, m := range regexp.MustCompile(`\brun ([\w./-]+\.(?:star|lua))\b`).FindAllStringSubmatch(readme, -1) {
		paths = append(paths, m[1])
	}
	if len(paths) == 0 {
		t.Fatal("found no file paths in README.md")
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("README.md names %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "LICENSE")); err != nil {
		t.Errorf("README.md names LICENSE: %v", err)
	}

	fn := regexp.MustCompile(`(?s)\n// myPolicy is.*?\n}\n`).FindString(readme)
	if fn == "" {
		t.Fatal("README.md has no myPolicy function")
	}
	ex, err := os.ReadFile(filepath.Join(root, "executor", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if goForm := strings.ReplaceAll(fn, "    ", "\t"); !strings.Contains(string(ex), goForm) {
		t.Errorf("README.md's myPolicy is not the one in executor/example_test.go:\n%s", goForm)
	}

	// The root package's policy is the one its example runs.
	pol := regexp.MustCompile("(?s)```python\n(def no_mallory.*?)```").FindStringSubmatch(readme)
	if pol == nil {
		t.Fatal("README.md has no no_mallory policy")
	}
	rootEx, err := os.ReadFile(filepath.Join(root, "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rootEx), "const policy = `\n"+pol[1]+"`") {
		t.Errorf("README.md's no_mallory policy is not the one example_test.go runs:\n%s", pol[1])
	}
}
