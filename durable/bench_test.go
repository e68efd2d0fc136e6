package durable_test

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/durable"
	"github.com/agentsh/agentsh/executor"
)

// BenchmarkJournalStep is the cost of one tool call in a durable run,
// journaled (its decision and its work, two steps in the SQLite file of
// a temporary directory) and not (the same executor without the
// journal), both inside a run's workflow. The run makes b.N calls of a
// Go no-op tool; the difference of the two is what the journal adds to a
// call.
func BenchmarkJournalStep(b *testing.B) {
	for _, journaled := range []bool{false, true} {
		name := "journal=off"
		if journaled {
			name = "journal=on"
		}
		b.Run(name, func(b *testing.B) { benchJournalStep(b, journaled) })
	}
}

func benchJournalStep(b *testing.B, journaled bool) {
	ctx := context.Background()
	args := json.RawMessage(`{"path":"README.md","limit":10}`)
	reg := core.NewRegistry()
	if err := reg.RegisterTools(core.Tool{Name: "noop", Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}); err != nil {
		b.Fatal(err)
	}
	var failed string
	run := func(ctx context.Context, j *durable.Journal, spec durable.Spec, out io.Writer) (durable.Outcome, error) {
		opts := []executor.Option{executor.WithConcurrency(1)}
		if journaled {
			opts = append(opts, executor.WithJournal(j))
		}
		exec := executor.New(reg, opts...)
		for range b.N {
			res, err := exec.InvokeTool(ctx, "noop", args)
			if err != nil || res.ForLLM != "ok" {
				failed = res.ForLLM
				if err != nil {
					failed = err.Error()
				}
				return durable.Outcome{ExitCode: 1}, nil
			}
		}
		return durable.Outcome{}, nil
	}
	eng, err := durable.Open(ctx, durable.Config{DB: "sqlite:" + filepath.Join(b.TempDir(), "runs.db"), Run: run})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	b.ReportAllocs()
	b.ResetTimer()
	o, err := eng.Start(ctx, durable.Spec{WorkDir: b.TempDir()}, io.Discard)
	b.StopTimer()
	if err != nil || o.ExitCode != 0 {
		b.Fatalf("the run: exit %d, %v; a call: %s", o.ExitCode, err, failed)
	}
}
