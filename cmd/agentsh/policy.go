package main

import (
	"fmt"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/executor"
)

// policyCLI runs: agentsh policy diff OLD NEW SOURCE... It re-decides the
// recorded calls under both policy sets (package policydiff) and prints
// the changed ones: exit 0 when nothing changed, 1 when something did, 2
// on bad input (a policy that does not load, a source that is not one).
func policyCLI(o *options, std stdio) int {
	p := o.positional
	if len(p) < 4 || p[0] != "diff" || len(o.loads) > 0 { // OLD and NEW are the policies; --load would blur which
		fmt.Fprintln(std.err, "agentsh: policy diff needs the old and new policies (files or directories, no --load) and the recorded calls: agentsh policy diff OLD NEW SOURCE...\nrun 'agentsh help' for usage")
		return exitUsage
	}
	ctx, stop := runContext(o.timeout, std.err)
	defer stop()
	perms, _ := executor.ParsePermissions(o.permissions) // checked by parseArgs
	r, err := agentsh.DiffPolicies(ctx, agentsh.PolicyDiff{Old: p[1], New: p[2], Sources: p[3:], Coverage: o.coverage,
		Config: agentsh.Config{WorkDir: o.workdir, Lang: o.lang, NoBuiltins: o.noBuiltins, Permissions: perms,
			Sandbox: o.sandbox, SandboxBackend: o.sandboxBackend, MaxSteps: o.maxSteps}})
	if s := stopCause(ctx); s != nil {
		fmt.Fprintln(std.err, "agentsh: interrupted")
		return s.exitCode()
	}
	if err != nil {
		fmt.Fprintf(std.err, "agentsh: policy diff: %v\n", err)
		return exitUsage
	}
	if o.jsonOut {
		err = r.WriteJSON(std.out)
	} else {
		err = r.WriteText(std.out)
	}
	if err != nil || r.Changed > 0 {
		return exitError
	}
	return exitOK
}
