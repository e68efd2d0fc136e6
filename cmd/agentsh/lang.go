package main

import (
	"github.com/agentsh/agentsh/script"

	// The script languages, registered by their bindings.
	_ "github.com/agentsh/agentsh/script/lua"
	_ "github.com/agentsh/agentsh/script/starlark"
)

// defaultLang is the language of -c, piped stdin, the REPL and files of
// no registered extension, unless --lang says otherwise.
const defaultLang = "starlark"

// langOf names the language of a script file by its extension; other files
// are in the --lang language.
func (a *app) langOf(path string) string {
	if l, ok := script.LanguageOf(path); ok {
		return l.Name
	}
	return a.opts.lang
}

// interp returns the interpreter of the language name (as parseArgs
// checked it) on the app's host, creating it on first use so that a run
// pays only for the languages it uses. All of them share the host, so
// their tools, hooks and middleware apply to each other.
func (a *app) interp(name string) script.Interp {
	l, ok := script.LookupLanguage(name)
	if !ok {
		l, _ = script.LookupLanguage(defaultLang)
	}
	name = l.Name
	if in := a.interps[name]; in != nil {
		return in
	}
	in := l.New(a.host, script.Options{MaxSteps: a.opts.maxSteps, Argv: a.argv})
	if a.interps == nil {
		a.interps = map[string]script.Interp{}
	}
	a.interps[name] = in
	return in
}
