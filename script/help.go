package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/internal/wording"
)

// Help describes a script name from its declaration: a builtin ("tool")
// or a module member ("json.encode") as its signature and one-line doc, a
// module ("json") as its doc and members; "" lists every name. Optional
// parameters end in "?". It is safe to call concurrently.
func (h *Host) Help(name string) (string, error) {
	api, mods := h.API(), h.Modules()
	if name == "" {
		names := make([]string, len(api))
		for i, b := range api {
			names[i] = b.Name
		}
		modNames := make([]string, len(mods))
		for i, m := range mods {
			modNames[i] = m.Name
		}
		return fmt.Sprintf("names: %s\nmodules: %s\nhelp(\"NAME\") describes one (help(\"json\"), help(\"json.encode\"))",
			strings.Join(names, ", "), strings.Join(modNames, ", ")), nil
	}
	var known []string
	for _, b := range api {
		if b.Name == name {
			return signature(b.Name, b) + "\n  " + b.Doc, nil
		}
		known = append(known, b.Name)
	}
	modName, member, dotted := strings.Cut(name, ".")
	for _, m := range mods {
		known = append(known, m.Name)
		if m.Name != modName {
			continue
		}
		if !dotted {
			members := make([]string, len(m.Members))
			for i, b := range m.Members {
				members[i] = b.Name
			}
			return fmt.Sprintf("%s: %s\n  members: %s", m.Name, m.Doc, strings.Join(members, ", ")), nil
		}
		for _, b := range m.Members {
			if b.Name == member {
				return signature(name, b) + "\n  " + b.Doc, nil
			}
			known = append(known, m.Name+"."+b.Name)
		}
	}
	msg := fmt.Sprintf("help: no script name %q", name)
	if near, ok := wording.Nearest(name, known); ok {
		return "", fmt.Errorf("%s; did you mean %q?", msg, near)
	}
	return "", fmt.Errorf("%s; help() lists them", msg)
}

// signature is "name(a, b?)", or "name(key = value, ...)" for a builtin
// that takes any keywords.
func signature(name string, b Builtin) string {
	if b.Keywords {
		return name + "(key = value, ...)"
	}
	ps := make([]string, len(b.Params))
	for i, p := range b.Params {
		ps[i] = p.Name
		if p.Optional {
			ps[i] += "?"
		}
	}
	return name + "(" + strings.Join(ps, ", ") + ")"
}

// apiHelp is help(name): it prints what Help says.
func (h *Host) apiHelp(_ context.Context, a Args) (any, error) {
	text, err := h.Help(a["name"].(string))
	if err != nil {
		return nil, err
	}
	h.Print(text)
	return nil, nil
}
