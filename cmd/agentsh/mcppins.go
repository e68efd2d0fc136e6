package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/mcp"
)

// The pins of upstream tool definitions (package tools/mcp): every
// host's MCP client checks its servers' tools against one pins file;
// agentsh mcp pins shows it, and accepts a changed definition.

// pinsPath is --pins FILE, else $XDG_STATE_HOME/agentsh/mcp-pins.json.
func (a *app) pinsPath() string {
	if a.opts.mcp.pins != "" {
		return a.opts.mcp.pins
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "mcp-pins.json"
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "agentsh", "mcp-pins.json")
}

// pinsFlag is " --pins FILE" when --pins was given, for the commands a
// person is told to run.
func (a *app) pinsFlag() string {
	if a.opts.mcp.pins == "" {
		return ""
	}
	return " --pins " + a.opts.mcp.pins
}

// upstreamPins is the pins file of this process, one for all its hosts.
func (a *app) upstreamPins() *mcp.Pins {
	a.pinsOnce.Do(func() { a.pins = mcp.NewPins(a.pinsPath()) })
	return a.pins
}

// newMCPClient returns the client of a host's upstream MCP servers
// (--mcp, mcp_server): their tools are checked against the pins, and what
// the person should know — a tool held back, a name taken, a listing
// that failed — is said on stderr (an mcp_warning event with --json).
func (a *app) newMCPClient(h *script.Host) *mcp.Client {
	return mcp.NewClient(h.Executor().Registry(), mcp.WithPins(a.upstreamPins()),
		mcp.WithWarn(func(msg string) { a.warn("mcp_warning", msg) }))
}

// heldTools are the upstream tools held back in this process.
func (a *app) heldTools() []mcp.Held {
	if a.agent == nil {
		return nil
	}
	return a.agent.mcp.Held()
}

// heldLine is what agentsh tools says of a tool held back.
func (a *app) heldLine(h mcp.Held) string {
	return fmt.Sprintf("[held back: its %s changed since it was pinned; the model is not shown it] review it with `agentsh mcp pins %s%s`, accept it with `agentsh mcp pins%s --accept %s`",
		strings.Join(h.Changed, ", "), h.Tool, a.pinsFlag(), a.pinsFlag(), h.Tool)
}

// upstreamRecord describes an upstream tool for agentsh tools --json and
// list_tools functions: its server, the server's name for it and the
// server's hints (its annotations, which agentsh does not believe); nil
// for another tool.
func (a *app) upstreamRecord(name string) map[string]any {
	if a.agent == nil {
		return nil
	}
	d, ok := a.agent.mcp.Definition(name)
	if !ok {
		return nil
	}
	var hints any
	if len(d.Annotations) > 0 {
		var m map[string]any
		if json.Unmarshal(d.Annotations, &m) == nil {
			hints = m
		}
	}
	return map[string]any{"server": d.Server, "tool": d.Tool, "hints": hints}
}

// pinsCommand is agentsh mcp pins [NAME...] [--accept NAME[@DIGEST]]:
// each pinned tool (or those named) with its pinned text and, when a
// changed definition waits, what changed and a diff pinned → live;
// --accept makes the changed definition the pinned one (with @DIGEST,
// only the one reviewed). With --mcp, the servers were
// listed at start, so "live" is what they offer now; otherwise it is
// what a session saw last.
func (a *app) pinsCommand(names []string) int {
	pins := a.upstreamPins()
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
