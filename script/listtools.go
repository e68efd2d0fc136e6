package script

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// ListTools is on("list_tools", fn) of a host that serves its registry
// (agentsh mcp serve): fn(tool) gets a record with .name .description
// .read_only .idempotent and .upstream (an upstream tool's server, its
// name there and the server's hints, or None) and returns False to leave
// the tool out of the listing (True or None keep it). Hide is safe for
// concurrent use.
type ListTools struct {
	upstream func(name string) map[string]any

	mu  sync.Mutex
	fns []Func
}

// OnListTools adds the list_tools event to h. upstream describes an
// upstream tool for .upstream (nil for another tool); nil describes none.
func OnListTools(h *Host, upstream func(name string) map[string]any) *ListTools {
	l := &ListTools{upstream: upstream}
	h.AddEvent(Event{Name: "list_tools", On: l.add})
	return l
}

func (l *ListTools) add(fn Func) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fns = append(l.fns, fn)
	return nil
}

// Hide reports whether a list_tools function leaves t out; an error
// hides it.
func (l *ListTools) Hide(ctx context.Context, t *core.Tool) (bool, error) {
	l.mu.Lock()
	fns := append([]Func(nil), l.fns...)
	l.mu.Unlock()
	var up any
	if l.upstream != nil {
		if r := l.upstream(t.Name); r != nil {
			up = r
		}
	}
	rec := Record{"name": t.Name, "description": t.Description, "read_only": t.ReadOnly, "idempotent": t.Idempotent, "upstream": up}
	for _, fn := range fns {
		out, err := fn.Call(ctx, rec)
		if err != nil {
			return true, fmt.Errorf("%s: %w", fn.Name(), err)
		}
		switch v := out.(type) {
		case nil:
		case bool:
			if !v {
				return true, nil
			}
		default:
			return true, fmt.Errorf("%s returned %v; a list_tools function returns True or None to list the tool, False to hide it", fn.Name(), out)
		}
	}
	return false, nil
}
