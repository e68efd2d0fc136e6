package search

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/internal/wording"
)

// GrepOpener returns a grep backend for the tree at root. It fails, saying
// what to install, when a program the backend runs is missing.
type GrepOpener func(root string) (Grepper, error)

// GlobOpener returns a glob backend for the tree at root, as GrepOpener.
type GlobOpener func(root string) (Globber, error)

// Backends are chosen by name (--grep-backend, config(grep_backend = ...),
// benchcmd -backend) from what is registered here: native, ripgrep and
// fd by this package, others by the programs that import them.
var (
	grepBackends = registry[Grepper]{kind: "grep"}
	globBackends = registry[Globber]{kind: "glob"}
)

func init() {
	RegisterGrep("native", func(root string) (Grepper, error) { return NewNative(root), nil })
	RegisterGrep("ripgrep", func(root string) (Grepper, error) {
		rg, err := NewRipgrep(root)
		if err != nil {
			return nil, err // not a Grepper holding a nil *Ripgrep
		}
		return rg, nil
	})
	RegisterGlob("native", func(root string) (Globber, error) { return NewNative(root), nil })
	RegisterGlob("ripgrep", func(root string) (Globber, error) {
		rg, err := NewRipgrep(root)
		if err != nil {
			return nil, err
		}
		return rg, nil
	})
	RegisterGlob("fd", func(root string) (Globber, error) {
		fd, err := NewFd(root)
		if err != nil {
			return nil, err
		}
		return fd, nil
	})
}

// RegisterGrep makes a grep backend selectable by name. It panics if name
// is empty, holds a space, or is taken: two backends claiming one name is
// a mistake in the program. A backend should pass searchtest.TestGrepper.
// Register from init; it is safe to call concurrently with the lookups.
func RegisterGrep(name string, open GrepOpener) { grepBackends.register(name, open) }

// RegisterGlob makes a glob backend selectable by name, as RegisterGrep;
// it should pass searchtest.TestGlobber.
func RegisterGlob(name string, open GlobOpener) { globBackends.register(name, open) }

// LookupGrep returns the opener of the grep backend registered as name,
// or an error listing the registered names.
func LookupGrep(name string) (GrepOpener, error) { return grepBackends.lookup(name) }

// LookupGlob returns the opener of the glob backend registered as name,
// or an error listing the registered names.
func LookupGlob(name string) (GlobOpener, error) { return globBackends.lookup(name) }

// OpenGrep returns the grep backend registered as name for the tree at
// root.
func OpenGrep(name, root string) (Grepper, error) {
	open, err := LookupGrep(name)
	if err != nil {
		return nil, err
	}
	return open(root)
}

// OpenGlob returns the glob backend registered as name for the tree at
// root.
func OpenGlob(name, root string) (Globber, error) {
	open, err := LookupGlob(name)
	if err != nil {
		return nil, err
	}
	return open(root)
}

// GrepBackends names the registered grep backends, in the order they were
// registered (the built-in ones first).
func GrepBackends() []string { return grepBackends.names() }

// GlobBackends names the registered glob backends, as GrepBackends.
func GlobBackends() []string { return globBackends.names() }

// registry holds the backends of one kind.
type registry[T any] struct {
	kind  string // "grep" or "glob", for messages
	mu    sync.RWMutex
	order []string
	open  map[string]func(root string) (T, error)
}

func (b *registry[T]) register(name string, open func(string) (T, error)) {
	if name == "" || strings.ContainsAny(name, " \t\n,") {
		panic(fmt.Sprintf("search.Register%s: name %q: want a word without spaces or commas", title(b.kind), name))
	}
	if open == nil {
		panic(fmt.Sprintf("search.Register%s: %q: nil opener", title(b.kind), name))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.open[name]; dup {
		panic(fmt.Sprintf("search.Register%s: %q is already registered", title(b.kind), name))
	}
	if b.open == nil {
		b.open = map[string]func(string) (T, error){}
	}
	b.open[name] = open
	b.order = append(b.order, name)
}

func (b *registry[T]) lookup(name string) (func(string) (T, error), error) {
	b.mu.RLock()
	open := b.open[name]
	b.mu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("unknown %s backend %q: want %s", b.kind, name, wording.OrList(b.names()))
	}
	return open, nil
}

func (b *registry[T]) names() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return append([]string(nil), b.order...)
}

func title(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }
