package script

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Language is a script language as it registers itself: the names and
// file extensions it answers to, and how to make its interpreters.
type Language struct {
	// Name is the language's name, such as "starlark" or "lua"; it is what
	// run_code's language argument takes.
	Name string
	// Aliases are other names for it, such as "star" (--lang).
	Aliases []string
	// Extensions are the file extensions of its scripts, with the dot,
	// such as ".star".
	Extensions []string
	// New returns an interpreter bound to host.
	New func(host *Host, opts Options) Interp
	// RunSandboxed, when set, runs code in a fresh interpreter that has no
	// host: no tools, no files, no state; only print and the pure modules.
	// It stops at maxSteps (0: the language's default) or when ctx ends,
	// and returns what the code printed with any error. It must be safe
	// for concurrent use. It is what run_code's child process runs.
	RunSandboxed func(ctx context.Context, code string, maxSteps uint64) (string, error)
}

var languages struct {
	sync.RWMutex
	list   []*Language
	byName map[string]*Language
	byExt  map[string]*Language
}

// RegisterLanguage makes a language available by its names and
// extensions. Bindings call it from init; a program gets a language by
// importing its binding (for its side effect, if it needs nothing else).
// It panics when a name or extension is taken or New is nil: that is a
// mistake in the program, not in its input.
func RegisterLanguage(l Language) {
	if l.Name == "" || l.New == nil {
		panic("script: RegisterLanguage needs a Name and a New function")
	}
	languages.Lock()
	defer languages.Unlock()
	if languages.byName == nil {
		languages.byName = map[string]*Language{}
		languages.byExt = map[string]*Language{}
	}
	lang := &l
	for _, n := range append([]string{l.Name}, l.Aliases...) {
		if _, dup := languages.byName[n]; dup {
			panic(fmt.Sprintf("script: language name %q registered twice", n))
		}
		languages.byName[n] = lang
	}
	for _, ext := range l.Extensions {
		if _, dup := languages.byExt[ext]; dup {
			panic(fmt.Sprintf("script: file extension %q registered twice", ext))
		}
		languages.byExt[ext] = lang
	}
	languages.list = append(languages.list, lang)
}

// LookupLanguage returns the language with the name or alias name.
func LookupLanguage(name string) (Language, bool) {
	languages.RLock()
	defer languages.RUnlock()
	l, ok := languages.byName[name]
	if !ok {
		return Language{}, false
	}
	return *l, true
}

// LanguageOf returns the language of the script file path, by its
// extension.
func LanguageOf(path string) (Language, bool) {
	languages.RLock()
	defer languages.RUnlock()
	l, ok := languages.byExt[filepath.Ext(path)]
	if !ok {
		return Language{}, false
	}
	return *l, true
}

// Languages returns the registered languages, sorted by name.
func Languages() []Language {
	languages.RLock()
	defer languages.RUnlock()
	out := make([]Language, len(languages.list))
	for i, l := range languages.list {
		out[i] = *l
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Extensions returns the file extensions of all registered languages,
// sorted.
func Extensions() []string {
	languages.RLock()
	defer languages.RUnlock()
	exts := make([]string, 0, len(languages.byExt))
	for ext := range languages.byExt {
		exts = append(exts, ext)
	}
	sort.Strings(exts)
	return exts
}

// UnknownLanguage is the error for a language name nobody registered; it
// lists the names there are.
func UnknownLanguage(name string) error {
	var names []string
	for _, l := range Languages() {
		names = append(names, l.Name)
		names = append(names, l.Aliases...)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown script language %q; want one of %s", name, strings.Join(names, ", "))
}
