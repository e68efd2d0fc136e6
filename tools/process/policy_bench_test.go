package process

import "testing"

// benchCommands are command lines of the kind a model sends: one short
// command, a pipeline with substitutions, and a small script.
var benchCommands = map[string]string{
	"short":    `ls -la`,
	"pipeline": `git status --short | grep -v '^??' | wc -l && echo "$(date +%s) done in $HOME"`,
	"script": `set -e
for f in *.go; do
  n=$(grep -c TODO "$f" || true)
  if [ "$n" -gt 0 ]; then
    printf '%s: %s\n' "$f" "$n"
  fi
done
i=0
while (( i < 3 )); do i=$((i + 1)); done
bash -c 'echo nested; ls | head -n 2'`,
}

func BenchmarkPolicy(b *testing.B) {
	policies := map[string]ShellPolicy{
		"block": {Block: []string{"rm", "curl"}},
		"allow": {Allow: []string{"ls", "git", "grep", "wc", "echo", "date", "set", "true", "[", "printf", "bash", "head"}},
	}
	for pname, p := range policies {
		for cname, cmd := range benchCommands {
			b.Run(pname+"/"+cname, func(b *testing.B) {
				if err := p.Check(cmd); err != nil {
					b.Fatalf("Check(%q) = %v, want nil", cmd, err)
				}
				b.ReportAllocs()
				for b.Loop() {
					_ = p.Check(cmd)
				}
			})
		}
	}
}
