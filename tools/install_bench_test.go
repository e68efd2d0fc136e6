package tools_test

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/tools"
)

// BenchmarkInstall measures what the CLI pays at start-up for the built-in
// tools: Init, and registering them (checking their schemas).
func BenchmarkInstall(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ex := executor.New(nil)
		if err := ex.Install(context.Background(), tools.NewExtension(tools.ExtensionConfig{WorkingDir: dir})); err != nil {
			b.Fatal(err)
		}
		ex.Close()
	}
}
