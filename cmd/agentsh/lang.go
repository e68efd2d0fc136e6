package main

import (
	"context"
	"path/filepath"

	"github.com/agentsh/agentsh/script/lua"
	sl "github.com/agentsh/agentsh/script/starlark"
	star "go.starlark.net/starlark"
)

// language is a script language as the CLI drives it. Both languages share
// the app's host, so their tools, hooks and middleware apply to each other.
type language interface {
	// run executes a file as a program.
	run(ctx context.Context, path string) error
	// load executes a file and keeps its globals for the REPL (--load, :load).
	load(ctx context.Context, path string) error
	// source runs a program read from stdin.
	source(ctx context.Context, name string, src []byte) error
	// exec runs a snippet and returns the rendered value of a sole
	// expression ("" when there is none).
	exec(ctx context.Context, name, code string) (string, error)
	// readChunk reads one REPL input, calling readline while it is
	// incomplete.
	readChunk(readline func() ([]byte, error)) (chunk, error)
	// eval runs a chunk from readChunk like exec.
	eval(ctx context.Context, c chunk) (string, error)
	// names are the globals, for completion.
	names() []string
}

// chunk is one REPL input of either language.
type chunk interface{ Empty() bool }

// Language names, as --lang takes them.
const (
	langStarlark = "star"
	langLua      = "lua"
)

// langOf names the language of a script file by its extension; other files
// are in the --lang language.
func (a *app) langOf(path string) string {
	switch filepath.Ext(path) {
	case ".lua":
		return langLua
	case ".star":
		return langStarlark
	}
	return a.opts.lang
}

// language returns the interpreter for name, creating the Lua one on first
// use so that Starlark-only runs do not pay for it.
func (a *app) language(name string) language {
	if name != langLua {
		return starlarkLang{a.interp}
	}
	if a.lua == nil {
		a.lua = lua.New(a.host, lua.Options{Argv: a.argv, MaxSteps: a.opts.maxSteps})
	}
	return luaLang{a.lua}
}

type starlarkLang struct{ in *sl.Interp }

func (s starlarkLang) run(ctx context.Context, path string) error {
	_, err := s.in.ExecFile(ctx, path)
	return err
}

func (s starlarkLang) load(ctx context.Context, path string) error {
	g, err := s.in.ExecFile(ctx, path)
	if err == nil {
		s.in.Define(g)
	}
	return err
}

func (s starlarkLang) source(ctx context.Context, name string, src []byte) error {
	_, err := s.in.ExecSource(ctx, name, src)
	return err
}

func (s starlarkLang) exec(ctx context.Context, name, code string) (string, error) {
	v, err := s.in.Exec(ctx, name, code)
	return starlarkText(v), err
}

func (s starlarkLang) readChunk(readline func() ([]byte, error)) (chunk, error) {
	return sl.ReadChunk("<stdin>", readline)
}

func (s starlarkLang) eval(ctx context.Context, c chunk) (string, error) {
	v, err := s.in.EvalChunk(ctx, c.(*sl.Chunk))
	return starlarkText(v), err
}

func (s starlarkLang) names() []string { return s.in.GlobalNames() }

// starlarkText is how the REPL shows a value: nothing for None.
func starlarkText(v star.Value) string {
	if v == nil || v == star.None {
		return ""
	}
	return v.String()
}

type luaLang struct{ in *lua.Interp }

func (l luaLang) run(ctx context.Context, path string) error {
	_, err := l.in.ExecFile(ctx, path)
	return err
}

func (l luaLang) load(ctx context.Context, path string) error {
	g, err := l.in.ExecFile(ctx, path)
	if err == nil {
		l.in.Define(g)
	}
	return err
}

func (l luaLang) source(ctx context.Context, name string, src []byte) error {
	_, err := l.in.ExecSource(ctx, name, src)
	return err
}

func (l luaLang) exec(ctx context.Context, name, code string) (string, error) {
	return l.in.Exec(ctx, name, code)
}

func (l luaLang) readChunk(readline func() ([]byte, error)) (chunk, error) {
	return lua.ReadChunk("<stdin>", readline)
}

func (l luaLang) eval(ctx context.Context, c chunk) (string, error) {
	return l.in.EvalChunk(ctx, c.(*lua.Chunk))
}

func (l luaLang) names() []string { return l.in.GlobalNames() }
