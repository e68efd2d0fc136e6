//go:build unix

package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// fakeProgram puts a shell script named name first on PATH (and alone:
// the script may use only the shell's builtins).
func fakeProgram(t *testing.T, name, script string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to run a fake program with")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

func writeTestFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// grepResult runs a search and returns what it emitted, formatted, and
// its error.
func grepResult(g Grepper, req GrepRequest) (string, error) {
	var b strings.Builder
	err := g.Grep(context.Background(), req, func(r FileResult) bool {
		b.WriteString(formatResult(r))
		return true
	})
	return b.String(), err
}

func globResult(g Globber, req GlobRequest) (string, error) {
	var b strings.Builder
	err := g.Glob(context.Background(), req, func(p string) bool {
		b.WriteString(p + "\n")
		return true
	})
	return b.String(), err
}

// TestRipgrepAbnormalExit checks that rg ending abnormally is an error,
// never a result: killed by a signal (with or without output before),
// or with a status or a message that is not rg's way of saying it is
// done.
func TestRipgrepAbnormalExit(t *testing.T) {
	cases := []struct {
		name, script string
		want         []string // in the error
	}{
		{"killed", `kill -KILL $$`, []string{"rg ended abnormally (signal: killed)", "run the search again"}},
		{"killed after output", `printf './a.txt\0001:needle\n'; kill -KILL $$`, []string{"rg ended abnormally (signal: killed)"}},
		{"terminated", `kill -TERM $$`, []string{"rg ended abnormally (signal: terminated)"}},
		{"status 3", `printf 'boom\n' >&2; exit 3`, []string{"rg ended abnormally (exit status 3): boom"}},
		{"status 2 in silence", `exit 2`, []string{"rg failed (exit status 2) and said nothing"}},
		{"status 2 with a message", `printf 'error: unexpected argument\n' >&2; exit 2`, []string{"rg failed: error: unexpected argument"}},
		{"status 1 with a message", `printf 'something odd\n' >&2; exit 1`, []string{"rg failed: something odd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTestFiles(t, root, map[string]string{"a.txt": "needle\n", "b.txt": "needle\n"})
			fakeProgram(t, "rg", c.script)
			rg, err := NewRipgrep(root)
			if err != nil {
				t.Fatal(err)
			}
			got, err := grepResult(rg, GrepRequest{Pattern: "needle"})
			if err == nil {
				t.Fatalf("no error; emitted %q", got)
			}
			if got != "" {
				t.Errorf("emitted %q before failing", got)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestRipgrepReadErrors checks what rg's messages about files it could
// not read do: permission errors skip those files, as on every backend;
// anything else it missed hands the search to the native backend.
func TestRipgrepReadErrors(t *testing.T) {
	files := map[string]string{"a.txt": "needle a\n", "b.txt": "needle b\n"}
	onlyA := "a.txt#1\n  1:needle a\n"
	both := onlyA + "b.txt#1\n  1:needle b\n"
	cases := []struct {
		name, script, want string
		fellBack           bool
	}{
		{"permission denied", `printf './a.txt\0001:needle a\n'; printf './b.txt: Permission denied (os error 13)\n' >&2; exit 2`, onlyA, false},
		{"name too long", `printf './a.txt\0001:needle a\n'; printf './d/d/d: File name too long (os error 36)\n' >&2; exit 2`, both, true},
		{"gone", `printf './a.txt\0001:needle a\n'; printf './b.txt: No such file or directory (os error 2)\n' >&2; exit 2`, both, true},
		{"a name like a message", `printf './a.txt\0001:needle a\n'; printf './x (os error 13)\ny: File name too long (os error 36)\n' >&2; exit 2`, both, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTestFiles(t, root, files)
			fakeProgram(t, "rg", c.script)
			rg, err := NewRipgrep(root)
			if err != nil {
				t.Fatal(err)
			}
			before := stats.RipgrepFallbacks.Load()
			got, err := grepResult(rg, GrepRequest{Pattern: "needle"})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if fellBack := stats.RipgrepFallbacks.Load() != before; fellBack != c.fellBack {
				t.Errorf("handed to the native backend: %v, want %v", fellBack, c.fellBack)
			}
		})
	}
}

// TestRipgrepOutputChecked gives the backend an rg that lies: whatever it
// prints must be checked against the files below the root.
func TestRipgrepOutputChecked(t *testing.T) {
	outside := t.TempDir()
	writeTestFiles(t, outside, map[string]string{"x.txt": "needle SECRET\n"})
	root := t.TempDir()
	writeTestFiles(t, root, map[string]string{
		"a.txt":   "needle real\nnext\n",
		"bin.txt": "needle\n\x00\n",
		"ctx.txt": "one\nneedle\nthree\nfour\n",
		"end.txt": "needle\n",
		"ok.txt":  "zero\nneedle ok\n",
	})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`./a.txt\0001:needle forged`, // not the file's line: searched again
		`./bin.txt\0001:needle`,      // binary: dropped
		`./ctx.txt\0002:needle`,      // context missing: searched again
		`./ctx.txt\0003-three`,
		`./end.txt\0001:needle`, // the file ends there: complete
		`./link/x.txt\0001:needle SECRET`,
		`./missing.txt\0001:needle`,
		`./fifo\0001:needle`, // not a regular file: dropped, never read
		`./ok.txt\0001-zero`, // all right: kept as it is
		`./ok.txt\0002:needle ok`,
		`./outside/../../x.txt\0001:needle SECRET`,
	}
	fakeProgram(t, "rg", `printf '`+strings.Join(lines, `\n`)+`\n'`)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	req := GrepRequest{Pattern: "needle", Before: 1, After: 2}
	got, err := grepResult(rg, req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := grepResult(NewNative(root), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "SECRET") {
		t.Errorf("emitted what lies outside the root:\n%s", got)
	}
	if got != want {
		t.Errorf("got\n%s\nwant (native)\n%s", got, want)
	}
	if !strings.Contains(got, "needle real") || !strings.Contains(got, "ctx.txt#1\n  1-one\n") {
		t.Errorf("the files rg misreported were not searched again:\n%s", got)
	}
}
