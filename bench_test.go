package agentsh_test

import (
	"testing"

	"github.com/agentsh/agentsh"
)

// BenchmarkNew is what every agentsh command pays before it does
// anything: composing the shell with the built-in tools on a directory.
func BenchmarkNew(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		sh, err := agentsh.New(agentsh.WithWorkDir(dir))
		if err != nil {
			b.Fatal(err)
		}
		sh.Close()
	}
}
