package core

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Registry holds the tools by name. It is safe for concurrent use and may
// change while calls run: a call resolves its tool once, when it starts.
// Registering a tool grants it no permission; hooks still apply.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*Tool
	names []string // sorted; nil when stale

	watchMu  sync.Mutex
	watchers map[int]func()
	nextW    int
}

// OnChange calls fn after every change of the registered tools (a
// registration, replacement or removal), on the goroutine that made it and
// with no lock held. It returns a function that stops the calls. fn must
// not block: it runs inside RegisterTools and UnregisterTools.
func (r *Registry) OnChange(fn func()) (stop func()) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	if r.watchers == nil {
		r.watchers = map[int]func(){}
	}
	id := r.nextW
	r.nextW++
	r.watchers[id] = fn
	return func() {
		r.watchMu.Lock()
		delete(r.watchers, id)
		r.watchMu.Unlock()
	}
}

func (r *Registry) changed() {
	r.watchMu.Lock()
	if len(r.watchers) == 0 {
		r.watchMu.Unlock()
		return
	}
	fns := make([]func(), 0, len(r.watchers))
	for _, fn := range r.watchers {
		fns = append(fns, fn)
	}
	r.watchMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]*Tool{}} }

// RegisterTools adds tools. It is all or nothing: an invalid name, a missing
// function, a schema that does not compile or a name that is already
// registered (or repeated in the list) registers none of them.
func (r *Registry) RegisterTools(tools ...Tool) error { return r.register(false, tools) }

// ReplaceTools is RegisterTools that replaces tools of the same name
// instead of failing. Calls already running keep the tool they started with.
func (r *Registry) ReplaceTools(tools ...Tool) error { return r.register(true, tools) }

func (r *Registry) register(replace bool, tools []Tool) error {
	prepared := make([]*Tool, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for i := range tools {
		t := tools[i] // copy: later changes to the caller's value do not leak in
		t.Before = append([]BeforeFunc(nil), t.Before...)
		t.After = append([]AfterFunc(nil), t.After...)
		if err := t.check(); err != nil {
			return fmt.Errorf("register tools: %w", err)
		}
		if seen[t.Name] {
			return fmt.Errorf("register tools: tool %q appears twice in one registration", t.Name)
		}
		seen[t.Name] = true
		prepared = append(prepared, &t)
	}
	r.mu.Lock()
	if r.tools == nil {
		r.tools = map[string]*Tool{}
	}
	if !replace {
		for _, t := range prepared {
			if _, dup := r.tools[t.Name]; dup {
				r.mu.Unlock()
				return &DuplicateToolError{Name: t.Name}
			}
		}
	}
	for _, t := range prepared {
		r.tools[t.Name] = t
	}
	r.names = nil
	r.mu.Unlock()
	r.changed()
	return nil
}

// UnregisterTools removes tools by name. It is all or nothing: if any name
// is not registered, nothing is removed and the error lists the unknown ones.
func (r *Registry) UnregisterTools(names ...string) error {
	r.mu.Lock()
	var unknown []string
	for _, n := range names {
		if _, ok := r.tools[n]; !ok {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) > 0 {
		r.mu.Unlock()
		return fmt.Errorf("unregister tools: not registered: %s", strings.Join(unknown, ", "))
	}
	for _, n := range names {
		delete(r.tools, n)
	}
	r.names = nil
	r.mu.Unlock()
	r.changed()
	return nil
}

// ToolNames returns the registered names in byte-wise order. The slice is
// the caller's.
func (r *Registry) ToolNames() []string {
	r.mu.RLock()
	names := r.names
	r.mu.RUnlock()
	if names == nil {
		r.mu.Lock()
		if r.names == nil {
			r.names = make([]string, 0, len(r.tools))
			for n := range r.tools {
				r.names = append(r.names, n)
			}
			sort.Strings(r.names)
		}
		names = r.names
		r.mu.Unlock()
	}
	return append([]string(nil), names...)
}

// GetTool returns the registered tool, or nil. The tool is shared with
// running calls: treat it as read-only. Do not call its Func to bypass the
// pipeline; use an executor.
func (r *Registry) GetTool(name string) *Tool {
	r.mu.RLock()
	t := r.tools[name]
	r.mu.RUnlock()
	return t
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// DuplicateToolError is the error of registering a tool under a name that
// is taken, without asking for replacement.
type DuplicateToolError struct{ Name string }

func (e *DuplicateToolError) Error() string {
	return fmt.Sprintf("register tools: tool %q is already registered; unregister it first or ask for replacement", e.Name)
}
