package agentsh

import (
	"context"

	"github.com/agentsh/agentsh/script"
)

// DefaultLang is the language of Eval and of files of no registered
// extension, unless WithLang says otherwise.
const DefaultLang = "starlark"

// Interp returns the interpreter of the language name ("starlark",
// "star", "lua"; "" is Config.Lang) on the shell's host, made on first
// use so that a shell pays only for the languages it runs. They share the
// host: tools, hooks and middleware one defines apply to the others. A
// language no binding registered is nil.
func (s *Shell) Interp(name string) script.Interp {
	if name == "" {
		name = s.cfg.Lang
	}
	l, ok := script.LookupLanguage(name)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if in := s.interps[l.Name]; in != nil {
		return in
	}
	opts := script.Options{MaxSteps: s.cfg.MaxSteps, Argv: s.cfg.Argv, Globals: s.cfg.Globals}
	if s.cfg.Journal != nil {
		opts.Now = s.cfg.Journal.Clock()
	}
	in := l.New(s.host, opts)
	if s.interps == nil {
		s.interps = map[string]script.Interp{}
	}
	s.interps[l.Name] = in
	return in
}

// LangOf names the language of a script file by its extension (.star,
// .lua); other files are in Config.Lang.
func (s *Shell) LangOf(path string) string {
	if l, ok := script.LanguageOf(path); ok {
		return l.Name
	}
	return s.cfg.Lang
}

// Load runs a Starlark or Lua file, by its extension; its tools, hooks
// and middleware apply to every call that follows.
func (s *Shell) Load(ctx context.Context, path string) error {
	return s.Interp(s.LangOf(path)).LoadFile(ctx, path)
}

// Eval runs code in Config.Lang and returns the value of a sole
// expression ("" for none); name is its file name in errors.
func (s *Shell) Eval(ctx context.Context, name, code string) (string, error) {
	return s.Interp("").Eval(ctx, name, []byte(code))
}

// Run runs a program in Config.Lang; name is its file name in errors.
func (s *Shell) Run(ctx context.Context, name string, src []byte) error {
	return s.Interp("").Run(ctx, name, src)
}
