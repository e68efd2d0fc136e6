package core

import (
	"context"
	"encoding/json"
	"fmt"
)

// ToolFunc runs a tool. args is always a JSON object. It returns a string, a
// JSON-encodable value, a DualToolOutput, a SilentResult, a DataOutput or a
// BlockCarrier; see Result.SetOutput for how each becomes a Result. An
// output or error that is a DataCarrier also gives the result its Data. A
// ToolFunc must honour ctx: timeouts and cancellation only work through it.
type ToolFunc func(ctx context.Context, args json.RawMessage) (any, error)

// Tool is a named function with a JSON Schema for its arguments.
//
// The zero value of every optional field is the default: no description, the
// schema {"type":"object"}, undeclared concurrency safety, not idempotent,
// no tool-specific hooks and no preview.
type Tool struct {
	// Name matches ^[A-Za-z0-9_-]{1,64}$ (model providers reject dots).
	Name        string
	Description string
	// Parameters is a JSON Schema for the arguments object. It is checked
	// at registration (see CompileSchema); a schema that does not compile
	// is a registration error. Nil means {"type":"object"}.
	Parameters json.RawMessage
	Func       ToolFunc
	// ConcurrencySafe says whether calls may overlap other calls: nil is
	// undeclared, which parallel mode treats as safe and mixed mode as unsafe.
	ConcurrencySafe *bool
	// Idempotent tools may be executed again by the Retry middleware.
	Idempotent bool
	// ReadOnly declares that the tool changes nothing (reads files,
	// searches, ...). A model's call of a read-only tool runs when no hook
	// decides; any other tool asks (see executor's permissions).
	ReadOnly bool
	// Effects declares what the tool does with its arguments: the paths
	// it reads, writes and deletes, the shell commands and code it runs,
	// the URLs it fetches. Before any hook runs, the executor makes the
	// declared paths canonical (decoded, relative to the working
	// directory, clean, refused when they leave it) and lists the call's
	// Effects, so policies decide on what the call will do. Nil declares
	// nothing: the arguments reach hooks as sent.
	Effects []ArgEffect
	// Sandboxed says the tool runs commands on this machine (bash,
	// run_code) in the operating-system sandbox the executor chooses per
	// call (Call.Sandbox, passed to the tool with WithSandbox).
	Sandboxed bool
	// Before and After hooks run only for calls of this tool, ahead of any
	// hook registered with the executor (see the executor package).
	Before []BeforeFunc
	After  []AfterFunc

	schema *Schema // set at registration

	// Preview, when set, says what a call with these arguments would
	// change, for a person deciding whether it may run (the REPL's
	// approval prompt shows it): write_file and edit_file give a unified
	// diff of the file. It must change nothing, and should read what it
	// shows the way the tool would (the same path resolution, the same
	// file access), so that what is shown is what will run. An error says
	// why there is nothing to show, at best the error the call itself
	// would fail with. Nil: the tool has no preview. It may be called
	// concurrently with anything, and must honour ctx.
	Preview func(ctx context.Context, args json.RawMessage) (string, error)
}

// Bool returns a pointer to b, for Tool.ConcurrencySafe.
func Bool(b bool) *bool { return &b }

// ValidToolName reports whether name may be used as a tool name: whether it
// matches ^[A-Za-z0-9_-]{1,64}$. (A loop: that regexp compiles to 64
// copies of the class, a quarter of a millisecond at every start.)
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Schema returns the compiled parameter schema of a registered tool, or nil
// for a tool that has not been registered.
func (t *Tool) Schema() *Schema { return t.schema }

// check validates the tool's definition and compiles its schema.
func (t *Tool) check() error {
	if !ValidToolName(t.Name) {
		return fmt.Errorf("invalid tool name %q: names must match ^[A-Za-z0-9_-]{1,64}$ (letters, digits, _ and -; no dots)", t.Name)
	}
	if t.Func == nil {
		return fmt.Errorf("tool %q has no function", t.Name)
	}
	if err := checkEffects(t.Effects); err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	s, err := CompileSchema(t.Parameters)
	if err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	t.schema = s
	return nil
}

// checkEffects refuses a declaration that names no argument, has an
// unknown kind, or declares one argument twice.
func checkEffects(effects []ArgEffect) error {
	seen := map[string]bool{}
	for _, e := range effects {
		switch {
		case e.Arg == "":
			return fmt.Errorf("an effect of kind %q names no argument", e.Kind)
		case seen[e.Arg]:
			return fmt.Errorf("argument %q has two effects; declare one", e.Arg)
		}
		seen[e.Arg] = true
		known := false
		for _, k := range ArgKinds {
			known = known || e.Kind == k
		}
		if !known {
			return fmt.Errorf("argument %q: unknown effect %q; want one of %s", e.Arg, e.Kind, argKindList())
		}
	}
	return nil
}

func argKindList() string {
	s := ""
	for i, k := range ArgKinds {
		if i > 0 {
			s += ", "
		}
		s += string(k)
	}
	return s
}
