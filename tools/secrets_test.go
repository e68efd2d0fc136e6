package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools"
)

// grep never searches the files the session treats as secrets — the
// executor's (config(secret_files = ...)) and the extension's own —
// whatever path or glob it is given, on every backend; other files are
// searched as before. Files keep their names in listings.
func TestGrepSkipsSecretFiles(t *testing.T) {
	for _, backend := range []string{"native", "ripgrep"} {
		t.Run(backend, func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{SecretFiles: []string{"id_ed25519"}})
			if backend == "ripgrep" {
				if err := e.ext.SetGrepBackend("ripgrep"); err != nil {
					t.Skipf("ripgrep backend: %v", err)
				}
			}
			e.write(map[string]string{
				"certs/server.pem": "KEY decoy\n", "certs/ca.crt": "KEY public\n", ".env": "KEY=decoy\n",
				"keys/id_ed25519": "KEY decoy\n", "src/main.go": "// KEY in code\n",
			})
			if err := e.exec.SetSecretFiles([]string{"*.pem", ".env*"}); err != nil {
				t.Fatal(err)
			}
			for _, args := range []map[string]any{
				{"pattern": "KEY", "hidden": true},
				{"pattern": "KEY", "path": "certs"},
				{"pattern": "KEY", "path": "certs/server.pem"},
				{"pattern": "KEY", "glob": "*.pem"},
				{"pattern": "KEY", "path": ".env", "hidden": true},
				{"pattern": "KEY", "path": "keys"},
			} {
				out := e.ok("grep", args)
				for _, secret := range []string{"server.pem", ".env", "id_ed25519", "decoy"} {
					if strings.Contains(out, secret) {
						t.Errorf("grep %v printed %q:\n%s", args, secret, out)
					}
				}
			}
			if out := e.ok("grep", map[string]any{"pattern": "KEY", "output_mode": "files_with_matches"}); out != "certs/ca.crt\nsrc/main.go\n" {
				t.Errorf("grep of the rest: %q", out)
			}
			if out := e.ok("list_dir", map[string]any{"path": "certs"}); !strings.Contains(out, "server.pem") {
				t.Errorf("list_dir hides the name of a secret file: %q", out)
			}
			if err := e.exec.SetSecretFiles([]string{"["}); err == nil || !strings.Contains(err.Error(), `"["`) {
				t.Errorf("a malformed pattern: %v", err)
			}
		})
	}
	ext := tools.NewExtension(tools.ExtensionConfig{WorkingDir: t.TempDir(), SecretFiles: []string{"[x"}})
	if err := ext.Init(context.Background()); err == nil || !strings.Contains(err.Error(), `"[x"`) {
		t.Errorf("a malformed SecretFiles: %v", err)
	}
}
