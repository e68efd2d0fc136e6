package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/tools/mcp"
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

// heldTools are the upstream tools held back in this process.
func (a *app) heldTools() []mcp.Held { return a.sh.MCP().Held() }

// heldLine is what agentsh tools says of a tool held back.
func (a *app) heldLine(h mcp.Held) string {
	return fmt.Sprintf("[held back: its %s changed since it was pinned; the model is not shown it] review it with `agentsh mcp pins %s%s`, accept it with `agentsh mcp pins%s --accept %s`",
		strings.Join(h.Changed, ", "), h.Tool, a.pinsFlag(), a.pinsFlag(), h.Tool)
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
	list, err := pins.List()
	if err != nil {
		return a.fail(err)
	}
	if list, err = onlyNamed(list, names, pins.Path()); err != nil {
		return a.fail(err)
	}
	if a.events != nil {
		for _, pt := range list {
			a.events.emit(a.pinEvent(pt))
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(a.io.err, "no upstream tool is pinned in %s; the tools of --mcp NAME=... and mcp_server(...) are pinned when first seen\n", pins.Path())
		return 0
	}
	var b strings.Builder
	for i, pt := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		a.writePin(&b, pt)
	}
	fmt.Fprint(a.io.out, b.String())
	return 0
}

// onlyNamed keeps the tools named, in list order; a name not pinned is
// an error that lists the pinned ones.
func onlyNamed(list []mcp.PinnedTool, names []string, path string) ([]mcp.PinnedTool, error) {
	if len(names) == 0 {
		return list, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []mcp.PinnedTool
	for _, pt := range list {
		if want[pt.Name] {
			out = append(out, pt)
			delete(want, pt.Name)
		}
	}
	if len(want) > 0 {
		var missing, pinned []string
		for n := range want {
			missing = append(missing, n)
		}
		for _, pt := range list {
			pinned = append(pinned, pt.Name)
		}
		sort.Strings(missing)
		if len(pinned) == 0 {
			pinned = []string{"none"}
		}
		return nil, fmt.Errorf("no pin of %s in %s; pinned: %s", strings.Join(missing, ", "), path, strings.Join(pinned, ", "))
	}
	return out, nil
}

// writePin writes one tool: a line with its name and state, its pinned
// text, and the diff to the changed definition waiting, all indented.
func (a *app) writePin(b *strings.Builder, pt mcp.PinnedTool) {
	if pt.Live == nil {
		fmt.Fprintf(b, "%s: pinned\n", pt.Name)
	} else {
		fmt.Fprintf(b, "%s: changed since it was pinned (%s); held back until you accept it with `agentsh mcp pins%s --accept %s@%s`\n",
			pt.Name, strings.Join(pt.Changed, ", "), a.pinsFlag(), pt.Name, pt.ShortDigest())
	}
	switch {
	case pt.Pinned != nil:
		indentPin(b, pt.Pinned.Text())
	default:
		b.WriteString("    (pinned by an earlier agentsh, which kept a digest and no text)\n")
	}
	switch {
	case pt.Live == nil:
	case pt.Pinned != nil:
		b.WriteString("  changes, pinned → live:\n")
		indentPin(b, mcp.Diff(pt.Pinned, pt.Live))
	default:
		b.WriteString("  live:\n")
		indentPin(b, pt.Live.Text())
	}
}

func indentPin(b *strings.Builder, text string) {
	for _, line := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
}

// pinEvent is one tool of agentsh mcp pins --json.
func (a *app) pinEvent(pt mcp.PinnedTool) map[string]any {
	ev := map[string]any{"event": "pin", "tool": pt.Name, "state": "pinned", "pinned": pt.Pinned,
		"live": nil, "live_sha256": "", "changed": []string{}, "diff": ""}
	if pt.Live != nil {
		ev["state"], ev["live"], ev["live_sha256"], ev["changed"] = "changed", pt.Live, pt.LiveSHA256, pt.Changed
		if pt.Pinned != nil {
			ev["diff"] = mcp.Diff(pt.Pinned, pt.Live)
		}
	}
	return ev
}
