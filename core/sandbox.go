package core

import (
	"context"
	"fmt"
)

// Sandbox names where a call's commands run: the profile of the
// operating-system sandbox of a tool that runs commands (Tool.Sandboxed:
// bash, run_code). How a call's profile is settled is the executor's
// sandbox stage; the tools package confines the command. The empty Sandbox is unset: the
// call runs where its origin's default says.
type Sandbox string

// The profiles, narrowest first.
const (
	SandboxUnset     Sandbox = ""
	SandboxReadOnly  Sandbox = "read-only" // reads the workdir and the system; writes only a private /tmp
	SandboxWorkspace Sandbox = "workspace" // also writes the workdir, except .git and the agents' folders
	SandboxOff       Sandbox = "off"       // no sandbox: agentsh's own rights
)

var sandboxRank = map[Sandbox]int{SandboxReadOnly: 1, SandboxWorkspace: 2, SandboxOff: 3}

// ParseSandbox returns the profile named s: read-only, workspace or off.
func ParseSandbox(s string) (Sandbox, error) {
	if p := Sandbox(s); sandboxRank[p] > 0 {
		return p, nil
	}
	return SandboxUnset, fmt.Errorf("unknown sandbox profile %q: want read-only, workspace or off", s)
}

// Wider reports whether s lets a command do more than t: off is wider
// than workspace, which is wider than read-only. Unset is neither.
func (s Sandbox) Wider(t Sandbox) bool {
	return sandboxRank[s] > 0 && sandboxRank[t] > 0 && sandboxRank[s] > sandboxRank[t]
}

// Confined reports whether s runs commands in a sandbox (read-only or
// workspace).
func (s Sandbox) Confined() bool { return s == SandboxReadOnly || s == SandboxWorkspace }

type sandboxKey struct{}

// WithSandbox returns ctx carrying the profile a sandboxed tool runs the
// call's commands in; the executor sets it for every call of a
// Tool.Sandboxed tool.
func WithSandbox(ctx context.Context, s Sandbox) context.Context {
	return context.WithValue(ctx, sandboxKey{}, s)
}

// SandboxOf returns the profile ctx carries; SandboxUnset for none.
func SandboxOf(ctx context.Context) Sandbox {
	s, _ := ctx.Value(sandboxKey{}).(Sandbox)
	return s
}
