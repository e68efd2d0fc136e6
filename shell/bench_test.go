package shell_test

import (
	"testing"

	"github.com/agentsh/agentsh/shell"
)

func BenchmarkParse(b *testing.B) {
	for name, cmd := range map[string]string{
		"short":    `ls -la`,
		"pipeline": `git status --short | grep -v '^??' | wc -l && echo "$(date +%s) done in $HOME"`,
		"wrappers": `sudo -u root env FOO=1 timeout 5 bash -c 'rm -rf "$d"/x; find . -name "*.o" -exec rm {} +' > /tmp/log 2>&1`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				shell.Parse(cmd)
			}
		})
	}
}
