package agentsh_test

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
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

// BenchmarkInvokeAudit is one call of a trivial tool through the shell's
// pipeline, without and with an audit log (WithAudit): what a record
// costs a call.
func BenchmarkInvokeAudit(b *testing.B) {
	for _, name := range []string{"none", "audit"} {
		b.Run(name, func(b *testing.B) {
			opts := []agentsh.Option{agentsh.WithWorkDir(b.TempDir()), agentsh.WithOutput(io.Discard)}
			if name == "audit" {
				opts = append(opts, agentsh.WithAudit(filepath.Join(b.TempDir(), "audit.jsonl")))
			}
			sh, err := agentsh.New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer sh.Close()
			if err := sh.RegisterTools(core.Tool{Name: "noop", Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			args := json.RawMessage(`{"path": "a.txt"}`)
			b.ReportAllocs()
			for b.Loop() {
				if res, _ := sh.InvokeTool(ctx, "noop", args); !res.OK() {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
