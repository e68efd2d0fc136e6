package provider

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Opener opens a provider for a spec's argument: what follows "NAME:" in
// "openai:gpt-4o" (a model) or "replay:run.jsonl" (a file).
type Opener func(arg string) (Provider, error)

var registry struct {
	mu      sync.RWMutex
	openers map[string]Opener
}

// Register makes a kind of provider reachable by the spec prefix name,
// from --model NAME:ARG and provider("NAME:ARG") in scripts. Adapters
// register in their package's init, so a program reaches the adapters it
// imports (github.com/agentsh/agentsh/provider/all imports every one).
// Register panics if name is empty, holds a colon, or is taken: two
// adapters claiming one prefix is a mistake in the program, not in its
// input. It is safe to call concurrently with Open.
func Register(name string, open Opener) {
	if name == "" || strings.ContainsAny(name, ": \t\n") {
		panic(fmt.Sprintf("provider.Register: name %q: want a word without spaces or colons", name))
	}
	if open == nil {
		panic(fmt.Sprintf("provider.Register: %q: nil Opener", name))
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.openers[name]; dup {
		panic(fmt.Sprintf("provider.Register: %q is already registered", name))
	}
	if registry.openers == nil {
		registry.openers = map[string]Opener{}
	}
	registry.openers[name] = open
}

// Names returns the registered spec prefixes, sorted.
func Names() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	names := make([]string, 0, len(registry.openers))
	for n := range registry.openers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open returns the provider a spec names: NAME:ARG, where NAME is a
// registered prefix (see Names) and ARG is the model or file its adapter
// wants. The scripted model has no spec: scripts set it with model(fn),
// Go code with Func.
func Open(spec string) (Provider, error) {
	name, arg, ok := strings.Cut(spec, ":")
	if !ok || name == "" || arg == "" {
		return nil, fmt.Errorf("model %q: want PROVIDER:MODEL, where PROVIDER is %s", spec, oneOf(Names()))
	}
	registry.mu.RLock()
	open := registry.openers[name]
	registry.mu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("model %q: unknown provider %q; want %s", spec, name, oneOf(Names()))
	}
	return open(arg)
}

// oneOf lists names for an error message.
func oneOf(names []string) string {
	switch len(names) {
	case 0:
		return "a registered provider (this program registers none)"
	case 1:
		return names[0]
	}
	return "one of " + strings.Join(names, ", ")
}
