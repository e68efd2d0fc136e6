package script

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/workpath"
)

// shell.classify reads the secret files as the sandbox and secret_files
// do (workpath.MatchList: a .gitignore's reading, ! takes a name back
// out), and refuses a list it cannot read, saying what to write.
func TestShellClassifySecrets(t *testing.T) {
	secrets := process.DefaultSecrets
	for _, p := range []string{".env", ".env.local", "app/.env.production", ".env.example", "config/.env.sample",
		"certs/server.pem", "id_rsa", "id_ed25519.pub", ".ssh/config", "home/.aws/credentials", ".npmrc",
		"src/main.go", ".envrc", "notes/.env.dist", "keys/x.key", ".config/gcloud/adc.json", "x/.config/gcloud/a"} {
		got, err := shellClassify(context.Background(), Args{"command": "cat " + p, "dir": ".", "workdir": "", "home": "",
			"secrets": stringValues(secrets)})
		if err != nil {
			t.Fatal(err)
		}
		kinds := strings.Join(anyStrings(got.(map[string]any)["kinds"]), " ")
		if want := workpath.MatchList(secrets, p); strings.Contains(kinds, "secret") != want {
			t.Errorf("cat %s: kinds %q, want a secret %v as workpath.MatchList says", p, kinds, want)
		}
	}
	for _, bad := range []any{[]any{"[x"}, []any{int64(1)}, int64(2)} {
		_, err := shellClassify(context.Background(), Args{"command": "ls", "dir": ".", "workdir": "", "home": "", "secrets": bad})
		if err == nil || !strings.HasPrefix(err.Error(), "secrets: ") {
			t.Errorf("secrets = %v: %v, want an error about secrets", bad, err)
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
