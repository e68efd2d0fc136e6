//go:build linux

package process

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSandboxStart is the cost of one `true` through Sandbox.Exec in
// the workspace profile on each backend, and unconfined (off): the plan's
// look at a small working directory, the confinement, the start and the
// wait.
func BenchmarkSandboxStart(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, dir := range []string{".git/hooks", "src/pkg", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".env", ".env.example", "go.mod", "src/pkg/a.go", "docs/x.md"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name, backend string
		profile       Profile
	}{
		{"off", "auto", ProfileOff},
		{"bwrap", "bwrap", ProfileWorkspace},
		{"landlock", "landlock", ProfileWorkspace},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := NewSandbox(root, SandboxConfig{Backend: bc.backend})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Unavailable(); err != nil && bc.profile != ProfileOff {
				b.Skipf("%s cannot confine here: %v", bc.backend, err)
			}
			req := ExecRequest{Args: []string{"true"}}
			for b.Loop() {
				res, err := s.Exec(context.Background(), bc.profile, req)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("true: %+v, %v", res, err)
				}
			}
		})
	}
}
