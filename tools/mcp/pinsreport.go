package mcp

import (
	"fmt"
	"sort"
	"strings"
)

// Select lists the pinned tools named, in List's order (all of them
// without names); a name not pinned is an error that lists the pinned
// ones.
func (p *Pins) Select(names ...string) ([]PinnedTool, error) {
	list, err := p.List()
	if err != nil || len(names) == 0 {
		return list, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []PinnedTool
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
		return nil, fmt.Errorf("no pin of %s in %s; pinned: %s", strings.Join(missing, ", "), p.Path(), strings.Join(pinned, ", "))
	}
	return out, nil
}

// Report is the tool for a person: a line with its name and state, its
// pinned text, and the diff to the changed definition waiting, all
// indented. accept is the command that accepts the change, named in the
// line of a changed tool.
func (pt PinnedTool) Report(accept string) string {
	var b strings.Builder
	if pt.Live == nil {
		fmt.Fprintf(&b, "%s: pinned\n", pt.Name)
	} else {
		fmt.Fprintf(&b, "%s: changed since it was pinned (%s); held back until you accept it with `%s`\n",
			pt.Name, strings.Join(pt.Changed, ", "), accept)
	}
	switch {
	case pt.Pinned != nil:
		indentPin(&b, pt.Pinned.Text())
	default:
		b.WriteString("    (pinned by an earlier agentsh, which kept a digest and no text)\n")
	}
	switch {
	case pt.Live == nil:
	case pt.Pinned != nil:
		b.WriteString("  changes, pinned → live:\n")
		indentPin(&b, Diff(pt.Pinned, pt.Live))
	default:
		b.WriteString("  live:\n")
		indentPin(&b, pt.Live.Text())
	}
	return b.String()
}

func indentPin(b *strings.Builder, text string) {
	for _, line := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
}

// Event is the tool as a pin event of agentsh mcp pins --json
// (docs/events.md).
func (pt PinnedTool) Event() map[string]any {
	ev := map[string]any{"event": "pin", "tool": pt.Name, "state": "pinned", "pinned": pt.Pinned,
		"live": nil, "live_sha256": "", "changed": []string{}, "diff": ""}
	if pt.Live != nil {
		ev["state"], ev["live"], ev["live_sha256"], ev["changed"] = "changed", pt.Live, pt.LiveSHA256, pt.Changed
		if pt.Pinned != nil {
			ev["diff"] = Diff(pt.Pinned, pt.Live)
		}
	}
	return ev
}
