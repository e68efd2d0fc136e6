package serve

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

// destructive are the built-in tools that may delete or overwrite: a
// shell command, a file written over, an edit, code run.
var destructive = map[string]bool{"bash": true, "write_file": true, "edit_file": true, "run_code": true}

// openWorld are the built-in tools that reach the network: they change
// nothing on the machine, but what they request may have effects
// elsewhere, so they are not read-only; they destroy nothing here.
var openWorld = map[string]bool{"fetch": true, "browser": true}

// Annotations are the MCP hints for t: readOnlyHint from Tool.ReadOnly,
// idempotentHint from Tool.Idempotent; destructiveHint true for the
// built-ins bash, write_file, edit_file and run_code and false for fetch
// and browser (openWorldHint: not read-only, not destructive); other tools
// that are not read-only leave destructiveHint unset, which MCP reads as
// true. The hints describe a tool; they decide nothing here.
func Annotations(t *core.Tool) *sdk.ToolAnnotations {
	a := &sdk.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent}
	switch {
	case t.ReadOnly:
	case destructive[t.Name]:
		a.DestructiveHint = core.Bool(true)
	case openWorld[t.Name]:
		a.DestructiveHint = core.Bool(false)
		a.OpenWorldHint = core.Bool(true)
	}
	return a
}
