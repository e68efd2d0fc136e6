// Package builtins declares agentsh's built-in tools as data: which are
// read-only and what each does with its arguments (core.Tool.ReadOnly and
// Effects). Package tools builds the tools from it; a stand-in for a
// built-in tool (mock_tool in script tests) takes its declaration from
// here, so policies decide on the stand-in's calls as on the tool's.
//
// Everything here is read-only data, safe for concurrent use.
package builtins

import "github.com/agentsh/agentsh/core"

// Declaration is one built-in tool's declaration.
type Declaration struct {
	ReadOnly  bool
	Effects   []core.ArgEffect
	Sandboxed bool // runs commands in the sandbox (core.Tool.Sandboxed)
}

var declarations = map[string]Declaration{
	"read_file":  {ReadOnly: true, Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgRead}}},
	"list_dir":   {ReadOnly: true, Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgRead, Default: "."}}},
	"glob":       {ReadOnly: true, Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgRead, Default: "."}}},
	"grep":       {ReadOnly: true, Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgRead, Default: "."}}},
	"write_file": {Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgWrite}}},
	"edit_file":  {Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgWrite}}},
	"bash":       {Sandboxed: true, Effects: []core.ArgEffect{{Arg: "workdir", Kind: core.ArgDir}, {Arg: "command", Kind: core.ArgShell}}},
	"run_code":   {Sandboxed: true, Effects: []core.ArgEffect{{Arg: "code", Kind: core.ArgCode}}},
	"fetch":      {Effects: []core.ArgEffect{{Arg: "url", Kind: core.ArgURL}}},
	"browser":    {Effects: []core.ArgEffect{{Arg: "url", Kind: core.ArgURL}}},
}

// Lookup returns the declaration of the built-in tool name.
func Lookup(name string) (Declaration, bool) {
	d, ok := declarations[name]
	return d, ok
}

// Tool returns the built-in tool name as a core.Tool holding only its
// declaration (Name, ReadOnly, Effects), for script.Host.SetDeclarations.
func Tool(name string) (core.Tool, bool) {
	d, ok := declarations[name]
	return core.Tool{Name: name, ReadOnly: d.ReadOnly, Effects: d.Effects, Sandboxed: d.Sandboxed}, ok
}
