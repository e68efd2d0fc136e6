package main

import (
	"fmt"
	"io"
	"strings"
)

// The pins of upstream tool definitions (package tools/mcp): every
// host's MCP client checks its servers' tools against one pins file;
// agentsh mcp pins shows it, and accepts a changed definition.

// pinsFlag is " --pins FILE" when --pins was given, for the commands a
// person is told to run.
func (a *app) pinsFlag() string {
	if a.opts.mcp.pins == "" {
		return ""
	}
	return " --pins " + a.opts.mcp.pins
}

// heldLine is what agentsh tools says of a tool held back.
func (a *app) heldLine(tool string, changed []string) string {
	return fmt.Sprintf("[held back: its %s changed since it was pinned; the model is not shown it] review it with `agentsh mcp pins %s%s`, accept it with `agentsh mcp pins%s --accept %s`",
		strings.Join(changed, ", "), tool, a.pinsFlag(), a.pinsFlag(), tool)
}

// pinsCommand is agentsh mcp pins [NAME...] [--accept NAME[@DIGEST]]:
// each pinned tool (or those named) with its pinned text and, when a
// changed definition waits, what changed and a diff pinned → live;
// --accept makes the changed definition the pinned one (with @DIGEST,
// only the one reviewed). With --mcp, the servers were
// listed at start, so "live" is what they offer now; otherwise it is
// what a session saw last.
func (a *app) pinsCommand(names []string) int {
	pins := a.sh.Pins()
	if name := a.opts.mcp.accept; name != "" {
		if len(names) > 0 {
			return a.fail(usagef("mcp pins --accept %s: accept one tool at a time, without other names (got %s)", name, strings.Join(names, " ")))
		}
		name, digest, _ := strings.Cut(name, "@")
		d, err := pins.Accept(name, digest)
		if err != nil {
			return a.fail(err)
		}
		fmt.Fprintf(a.io.out, "accepted the new definition of %s; a session that is running takes it at its next listing of server %s\n", name, d.Server)
		return 0
	}
	list, err := pins.Select(names...)
	if err != nil {
		return a.fail(err)
	}
	if a.events != nil {
		for _, pt := range list {
			a.events.Emit(pt.Event())
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(a.io.err, "no upstream tool is pinned in %s; the tools of --mcp NAME=... and mcp_server(...) are pinned when first seen\n", pins.Path())
		return 0
	}
	for i, pt := range list {
		if i > 0 {
			io.WriteString(a.io.out, "\n")
		}
		io.WriteString(a.io.out, pt.Report(fmt.Sprintf("agentsh mcp pins%s --accept %s@%s", a.pinsFlag(), pt.Name, pt.ShortDigest())))
	}
	return 0
}
