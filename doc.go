// Package agentsh is an embedded scripting agent shell. Tools, hooks and
// middleware are defined in Starlark (or Go), register into one registry,
// and every tool call runs through one executor pipeline:
//
//	tool before hooks → global before hooks → middleware → tool
//	  → global after hooks → tool after hooks
//
// The packages:
//
//	core             the vocabulary: Tool, Call, Result, errors, Registry, Extension
//	executor         the pipeline, execution modes, middleware library
//	script           the language-neutral script API
//	script/starlark  the Starlark binding
//	stdlib           modules for scripts (json, re)
//	cmd/agentsh      the CLI and REPL
//
// This package holds no code; its tests check the dependency direction
// between the others.
package agentsh
