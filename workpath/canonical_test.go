package workpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLexical(t *testing.T) {
	const dir = "/w/proj"
	for _, c := range []struct{ in, want, err string }{
		{"", ".", ""},
		{".", ".", ""},
		{"./", ".", ""},
		{"src/a.go", "src/a.go", ""},
		{"src//a.go", "src/a.go", ""},
		{"./src/./a.go", "src/a.go", ""},
		{"src/../README.md", "README.md", ""},
		{"src/x/../../.env", ".env", ""},
		{"/w/proj", ".", ""},
		{"/w/proj/", ".", ""},
		{"/w/proj/src/a.go", "src/a.go", ""},
		{"/w/proj/../proj/src", "src", ""},
		{`"src\57main.go"`, "src/main.go", ""},
		{`"\x2eenv"`, ".env", ""},
		{`"certs/server.pe\155"`, "certs/server.pem", ""},
		{`"/w/proj/\056env"`, ".env", ""},
		{"~/x", "~/x", ""}, // a directory named ~: the tools expand nothing
		{"..", "", "outside the working directory"},
		{"../x", "", "outside the working directory"},
		{"src/../../x", "", "outside the working directory"},
		{"/w/projx/a", "", "outside the working directory"},
		{"/w", "", "outside the working directory"},
		{"/etc/passwd", "", "outside the working directory"},
		{`"..\57x"`, "", "outside the working directory"},
		{`"bad`, "", "not a valid quoted path"},
		{"a\x00b", "", "NUL byte"},
		{`"a\000b"`, "", "NUL byte"},
	} {
		got, err := Lexical(dir, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Lexical(%q) = %q, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Lexical(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLexicalErrorKinds(t *testing.T) {
	if _, err := Lexical("/w", "../x"); !errors.Is(err, ErrOutside) {
		t.Errorf("../x: %v, want ErrOutside", err)
	}
	if _, err := Lexical("/w", `"x`); !errors.Is(err, ErrInvalid) {
		t.Errorf(`"x: %v, want ErrInvalid`, err)
	}
}

// tree makes a working directory with files and symbolic links, and a
// sibling directory outside it.
func tree(t *testing.T) (*Dir, string) {
	t.Helper()
	root := t.TempDir()
	w := filepath.Join(root, "w")
	for _, d := range []string{"src/pkg", "lib/v2", "certs"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "outside"), 0o755)
	for _, f := range []string{".env", "src/pkg/a.go", "lib/v2/b.go", "certs/server.pem"} {
		if err := os.WriteFile(filepath.Join(w, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"notes.txt":      ".env",   // a file link, relative
		"current":        "lib/v2", // a directory link
		"src/up":         "..",     // climbs to the working directory
		"src/abs":        filepath.Join(w, "certs"),
		"escape":         "../outside", // leaves, relatively
		"escape_abs":     "/etc",       // leaves, absolutely
		"loop":           "loop",       // a link to itself
		"src/pkg/parent": "../../lib/v2/b.go",
		"dangling":       "nowhere/file",
		// The kernel takes current/.. to lib, not lexically to w.
		"abs_dotdot": filepath.Join(w, "current") + "/../v2/b.go",
		// It leaves w on the way, though the kernel would come back.
		"abs_reenter": w + "/../w/.env",
		"file_up":     ".env/../lib/v2/b.go", // a file is not a directory
		"file_in":     ".env/x",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(w, l)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := NewDir(w)
	if err != nil {
		t.Fatal(err)
	}
	return d, w
}

func TestCanonicalLinks(t *testing.T) {
	d, w := tree(t)
	for _, c := range []struct {
		in     string
		follow Follow
		want   string
		err    string
	}{
		{"notes.txt", FollowAll, ".env", ""},
		{"notes.txt", FollowParents, "notes.txt", ""}, // a write replaces the link
		{"notes.txt", FollowNone, "notes.txt", ""},
		{"current/b.go", FollowAll, "lib/v2/b.go", ""},
		{"current/b.go", FollowParents, "lib/v2/b.go", ""},
		{"current/new.go", FollowParents, "lib/v2/new.go", ""},
		{"current", FollowAll, "lib/v2", ""},
		{"current", FollowParents, "current", ""},
		{"src/up/.env", FollowAll, ".env", ""},
		{"src/up", FollowAll, ".", ""},
		{"src/abs/server.pem", FollowAll, "certs/server.pem", ""},
		{filepath.Join(w, "src/abs/server.pem"), FollowAll, "certs/server.pem", ""},
		{"src/pkg/parent", FollowAll, "lib/v2/b.go", ""},
		{"dangling", FollowAll, "nowhere/file", ""},
		{"missing/dir/x", FollowAll, "missing/dir/x", ""},
		{"escape/x", FollowAll, "", "through a symbolic link"},
		{"escape/x", FollowParents, "", "through a symbolic link"},
		{"escape", FollowParents, "escape", ""}, // the link itself is inside
		{"escape", FollowAll, "", "through a symbolic link"},
		{"escape_abs/passwd", FollowAll, "", "through a symbolic link"},
		{"loop", FollowAll, "", "symbolic links"},
		{"src/../notes.txt", FollowAll, ".env", ""},
		{"abs_dotdot", FollowAll, "lib/v2/b.go", ""},
		{"abs_reenter", FollowAll, "", "through a symbolic link"},
		{"file_up", FollowAll, "", `goes through ".env", which is not a directory`},
		{"file_in", FollowAll, ".env/x", ""}, // opening it fails: not a directory
		{".env/x", FollowAll, ".env/x", ""},
	} {
		got, err := d.Canonical(c.in, c.follow)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Canonical(%q, %d) = %q, %v; want an error with %q", c.in, c.follow, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Canonical(%q, %d) = %q, %v; want %q", c.in, c.follow, got, err, c.want)
		}
	}
}

// A path may go through 40 links, as in the kernel and the tools; the
// 41st is refused.
func TestCanonicalLinkLimit(t *testing.T) {
	w := t.TempDir()
	if err := os.WriteFile(filepath.Join(w, "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 41 {
		target := fmt.Sprintf("c%02d", i+1)
		if i == 40 {
			target = "f"
		}
		if err := os.Symlink(target, filepath.Join(w, fmt.Sprintf("c%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	d, err := NewDir(w)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.Canonical("c01", FollowAll); err != nil || got != "f" {
		t.Errorf("40 links: %q, %v; want f", got, err)
	}
	if got, err := d.Canonical("c00", FollowAll); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Errorf("41 links: %q, %v; want too many levels of symbolic links", got, err)
	}
}

// A working directory reached through a link: absolute paths may name it
// either way.
func TestCanonicalLinkedWorkdir(t *testing.T) {
	_, w := tree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(w, alias); err != nil {
		t.Fatal(err)
	}
	d, err := NewDir(alias)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{filepath.Join(alias, "src/pkg/a.go"), "src/pkg/a.go", "./src/pkg/../pkg/a.go"} {
		if got, err := d.Canonical(in, FollowAll); err != nil || got != "src/pkg/a.go" {
			t.Errorf("Canonical(%q) = %q, %v; want src/pkg/a.go", in, got, err)
		}
	}
	if got, err := d.Canonical(filepath.Join(w, "src/pkg/a.go"), FollowAll); err == nil {
		// The real path is not the alias lexically: refused, not guessed.
		t.Errorf("the real path through another name: %q, want refused", got)
	}
}

func TestWithinMatchClean(t *testing.T) {
	for _, c := range []struct {
		p, dir string
		want   bool
	}{
		{"src/a.go", "src", true},
		{"src", "src", true},
		{"srcx/a.go", "src", false},
		{"src/../a.go", "src", false},
		{"a", ".", true},
		{"../a", ".", false},
		{"/etc", ".", false},
		{"/etc/passwd", "/etc", true},
		{"/etc/passwd", "/", true},
		{"src/", "src", true},
	} {
		if got := Within(c.p, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.p, c.dir, got, c.want)
		}
	}
	for _, c := range []struct {
		pattern, p string
		want       bool
	}{
		{"*.pem", "certs/server.pem", true},
		{"*.pem", "server.pem", true},
		{"*.pem", "server.pem.txt", false},
		{".env*", ".env.local", true},
		{".env*", "config/.env", true},
		{"src/**/*.go", "src/a/b/c.go", true},
		{"src/*.go", "src/a/b.go", false},
		{".ssh/", ".ssh/id_ed25519", true},
		{".ssh/", "home/.ssh/config", true},
		{".ssh/", ".sshx/config", false},
		{"id_{rsa,ed25519}", "keys/id_rsa", true},
	} {
		got, err := Match(c.pattern, c.p)
		if err != nil || got != c.want {
			t.Errorf("Match(%q, %q) = %v, %v; want %v", c.pattern, c.p, got, err, c.want)
		}
	}
	if _, err := Match("[", "x"); err == nil || !strings.Contains(err.Error(), `"["`) {
		t.Errorf("Match of a malformed pattern: %v, want an error naming it", err)
	}
	if got := Clean("a/./b/../c/"); got != "a/c" {
		t.Errorf("Clean = %q", got)
	}
}

// deepDir makes levels directories, each named name, below w, and
// returns their path relative to w. The path may be longer than the
// system takes in one call (PATH_MAX): each is made relative to its
// parent.
func deepDir(t *testing.T, w, name string, levels int) string {
	t.Helper()
	r, err := os.OpenRoot(w)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var parts []string
	for range levels {
		parts = append(parts, name)
		if err := r.Mkdir(strings.Join(parts, "/"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(parts, "/")
}

// A link deeper than PATH_MAX is resolved like any other: the tools open
// beneath the directory one name at a time, so such a path is no way
// round a policy.
func TestCanonicalBeyondPathMax(t *testing.T) {
	w := t.TempDir()
	if err := os.WriteFile(filepath.Join(w, ".env"), []byte("SECRET=1"), 0o600); err != nil {
		t.Fatal(err)
	}
	const levels = 20
	deep := deepDir(t, w, strings.Repeat("d", 250), levels) // 5,020 bytes
	r, err := os.OpenRoot(w)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Symlink(strings.Repeat("../", levels)+".env", deep+"/env"); err != nil {
		t.Fatal(err)
	}
	if err := r.Symlink(strings.Repeat("../", levels+1)+"x", deep+"/out"); err != nil {
		t.Fatal(err)
	}
	d, err := NewDir(w)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.Canonical(deep+"/env", FollowAll); err != nil || got != ".env" {
		t.Errorf("a link beyond PATH_MAX: %.40q..., %v; want .env", got, err)
	}
	if got, err := d.Canonical(deep+"/out", FollowAll); !errors.Is(err, ErrOutside) {
		t.Errorf("a link beyond PATH_MAX that leads out: %.40q..., %v; want refused", got, err)
	}
	if got, err := d.Canonical(deep+"/new/file", FollowAll); err != nil || got != deep+"/new/file" {
		t.Errorf("a new file beyond PATH_MAX: %.40q..., %v; want it as written", got, err)
	}
}
