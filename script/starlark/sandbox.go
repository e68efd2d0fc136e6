package starlark

import (
	"context"
	"strings"

	"github.com/agentsh/agentsh/script"
	"go.starlark.net/lib/math"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// maxSandboxOutput bounds what a sandboxed snippet may print.
const maxSandboxOutput = 1 << 20

// sandboxGlobals are the pure modules: no tool API, no load, no state.
var sandboxGlobals = func() star.StringDict {
	d := star.StringDict{
		"math":   math.Module,
		"struct": star.NewBuiltin("struct", starlarkstruct.Make),
	}
	for _, m := range script.PureModules() {
		d[m.Name] = newModuleValue(m)
	}
	d.Freeze()
	return d
}()

// RunSandboxed runs code in a fresh interpreter that has print and the
// modules json, re, time, math and struct, and nothing else: no tools, no
// load(), no state. It stops at maxSteps (0 means DefaultMaxSteps) or when
// ctx ends, and returns what the code printed (at most 1 MiB) with any
// error. It is safe for concurrent use; it is the starlark runner of the
// run_code tool.
func RunSandboxed(ctx context.Context, code string, maxSteps uint64) (string, error) {
	if maxSteps == 0 {
		maxSteps = DefaultMaxSteps
	}
	var out strings.Builder
	t := &star.Thread{
		Name: "run_code",
		Print: func(_ *star.Thread, msg string) {
			if out.Len() < maxSandboxOutput {
				out.WriteString(msg)
				out.WriteByte('\n')
			}
		},
	}
	t.SetLocal(ctxKey, ctx) // so that re stops with ctx too
	t.SetMaxExecutionSteps(maxSteps)
	t.OnMaxSteps = func(t *star.Thread) { t.Cancel("step budget exceeded") }
	stop := context.AfterFunc(ctx, func() { t.Cancel(cancelReason(ctx)) })
	defer stop()
	_, err := star.ExecFileOptions(fileOptions, t, "<run_code>", code, sandboxGlobals)
	return out.String(), wrapError(err)
}
