package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
)

// auditOptions are --audit FILE (the commands that make calls append a
// record of each to FILE) and agentsh audit verify's --head HASH.
type auditOptions struct{ file, head string }

func init() {
	valueFlags["audit"] = str(func(o *options) *string { return &o.audit.file })
	valueFlags["head"] = str(func(o *options) *string { return &o.audit.head })
}

// checkAuditFlags refuses --audit where no call is made, and --head
// outside agentsh audit verify.
func checkAuditFlags(o *options) error {
	switch {
	case o.audit.file != "" && !slices.Contains([]string{"", "run", "call", "ask", "hook", "mcp"}, o.command):
		return usagef("--audit FILE applies to run, -c, call, ask, the REPL, hook and mcp serve, which make calls (agentsh audit verify FILE checks a log)")
	case o.audit.file != "" && o.durable:
		return usagef("--audit FILE does not apply to durable runs yet; run without --durable to keep an audit log")
	case o.audit.head != "" && o.command != "audit":
		return usagef("--head HASH applies to agentsh audit verify")
	}
	return nil
}

// auditVia names the command in the records of --audit ("repl" also for
// a script piped to stdin).
func auditVia(o *options) string {
	switch {
	case o.hasCode:
		return "-c"
	case o.command == "":
		return "repl"
	case o.command == "mcp":
		return "mcp serve"
	}
	return o.command
}

// auditCommand runs agentsh audit verify FILE [--head HASH] [--json]:
// exit 0 when the log is intact, 1 naming its first problem, 2 on bad
// usage or a file it cannot read.
func auditCommand(o *options, std stdio) int {
	if pos := o.positional; len(pos) != 2 || pos[0] != "verify" {
		fmt.Fprintf(std.err, "agentsh: audit needs a log to verify: agentsh audit verify FILE [--head HASH]\nrun 'agentsh help' for usage\n")
		return 2
	}
	rep, err := agentsh.VerifyAuditFile(o.positional[1], o.audit.head)
	if err != nil {
		fmt.Fprintf(std.err, "agentsh: audit verify: %v\n", flagError(err))
		return 2
	}
	if o.jsonOut {
		b, _ := core.MarshalJSON(rep)
		fmt.Fprintf(std.out, "%s\n", b)
	} else {
		io.WriteString(std.out, rep.Text(o.positional[1]))
	}
	if !rep.Intact() {
		return 1
	}
	return 0
}
