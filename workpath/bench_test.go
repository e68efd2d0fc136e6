package workpath

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCanonical measures Dir.Canonical of a typical path of four
// components: lexical only, resolved with no link on the way, resolved
// through a link (and an absolute link) to the same file, and given in
// the quoted form.
func BenchmarkCanonical(b *testing.B) {
	w := b.TempDir()
	if err := os.MkdirAll(filepath.Join(w, "src", "pkg", "sub"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "src", "pkg", "sub", "a.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for name, target := range map[string]string{"cur": "src", "abs": filepath.Join(w, "src", "pkg")} {
		if err := os.Symlink(target, filepath.Join(w, name)); err != nil {
			b.Fatal(err)
		}
	}
	d, err := NewDir(w)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		follow     Follow
	}{
		{"lexical", "src/pkg/sub/a.go", FollowNone},
		{"plain", "src/pkg/sub/a.go", FollowAll},
		{"link", "cur/pkg/sub/a.go", FollowAll},
		{"abs_link", "abs/sub/a.go", FollowAll},
		{"quoted", `"src/pkg/sub/\141.go"`, FollowAll},
		{"write_new", "src/pkg/sub/new.go", FollowParents},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := d.Canonical(c.path, c.follow); err != nil || got == "" {
					b.Fatalf("Canonical(%q) = %q, %v", c.path, got, err)
				}
			}
		})
	}
}
