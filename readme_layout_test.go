package agentsh_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEGoVersion: every Go version the README names is the one go.mod
// requires, so the README never asks for a toolchain that cannot build
// the module.
func TestREADMEGoVersion(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	want := string(m[1])
	readme := readREADME(t)
	found := regexp.MustCompile(`\bGo (1\.\d+(?:\.\d+)?)\b`).FindAllStringSubmatch(readme, -1)
	if len(found) == 0 {
		t.Fatalf("README.md names no Go version; want it to say Go %s", want)
	}
	for _, f := range found {
		if f[1] != want {
			t.Errorf("README.md says %q; go.mod's go line says %s", f[0], want)
		}
	}
}

// TestREADMELayout: the README's layout lists every package directory of
// the module, and names nothing that does not exist. A package under a
// directory named internal may be listed by that internal/ directory.
func TestREADMELayout(t *testing.T) {
	readme := readREADME(t)
	block := regexp.MustCompile("(?s)\n## Layout\n\n```\n(.*?)```\n").FindStringSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no ## Layout section with a code block")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(block[1], "\n") {
		if line == "" || line[0] == ' ' {
			continue // a description's continuation
		}
		entry := strings.Fields(line)[0]
		listed[entry] = true
		if _, err := os.Stat(filepath.FromSlash(strings.TrimSuffix(entry, "/"))); err != nil {
			t.Errorf("README.md's layout lists %s: %v", entry, err)
		}
	}

	packages := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			packages[filepath.ToSlash(filepath.Dir(p))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packages) < 10 {
		t.Fatalf("found %d package directories; want the whole module", len(packages))
	}
	for dir := range packages { // the module's root is "./"
		if !listed[dir+"/"] && !underListedInternal(dir, listed) {
			t.Errorf("README.md's layout does not list %s/, a package directory", dir)
		}
	}
}

// TestREADMEExamples: every example file the README names exists and
// holds runnable examples.
func TestREADMEExamples(t *testing.T) {
	files := regexp.MustCompile(`[\w/]+/example_test\.go`).FindAllString(readREADME(t), -1)
	if len(files) == 0 {
		t.Fatal("README.md names no example_test.go file")
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Errorf("README.md names %s: %v", f, err)
			continue
		}
		if !regexp.MustCompile(`(?m)^func Example\w*\(\) \{$`).Match(b) || !strings.Contains(string(b), "// Output:") {
			t.Errorf("README.md names %s, which has no Example function with an Output comment", f)
		}
	}
}

// underListedInternal reports whether dir lies below a directory named
// internal that the layout lists.
func underListedInternal(dir string, listed map[string]bool) bool {
	for d := path.Dir(dir); d != "." && d != "/"; d = path.Dir(d) {
		if path.Base(d) == "internal" && listed[d+"/"] {
			return true
		}
	}
	return false
}

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocListsPackages: the package doc names every package a program
// can import (internal ones aside).
func TestDocListsPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; it lists the packages")
	}
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if rel == "" || strings.Contains(rel, "internal") {
			continue
		}
		if !regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(rel) + `\s|[ ,]` + regexp.QuoteMeta(rel) + `[, ]`).Match(doc) {
			t.Errorf("doc.go does not name package %s", rel)
		}
	}
}
