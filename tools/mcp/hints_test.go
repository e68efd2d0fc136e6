package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// warnings collects what a Client reports to the person.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	w.msgs = append(w.msgs, msg)
	w.mu.Unlock()
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

func (w *warnings) joined() string { return strings.Join(w.all(), "\n") }

func TestHintsDeclareNothing(t *testing.T) {
	st := newState(false)
	reg := core.NewRegistry()
	w := &warnings{}
	c := NewClient(reg, WithWarn(w.add))
	defer c.Close()
	cfg := newMem(st).config("t")
	// Declared by the server's name, by the local name, and a typo.
	cfg.ReadOnly = []string{"write", "mcp__t__pid", "wirte"}
	if _, err := c.Add(ctxT(t), cfg); err != nil {
		t.Fatal(err)
	}

	// echo claims readOnlyHint and idempotentHint; it is declared nothing.
	echo := reg.GetTool("mcp__t__echo")
	if echo.ReadOnly || echo.ConcurrencySafe != nil || echo.Idempotent {
		t.Errorf("echo: ReadOnly %v, ConcurrencySafe %v, Idempotent %v; want false, nil, false", echo.ReadOnly, echo.ConcurrencySafe, echo.Idempotent)
	}
	// The hints stay visible, as the server's claims.
	d, ok := c.Definition("mcp__t__echo")
	if !ok {
		t.Fatal("no definition of mcp__t__echo")
	}
	if h := d.Hints(); h == nil || !h.ReadOnlyHint || !h.IdempotentHint {
		t.Errorf("echo's hints: %+v, want readOnlyHint and idempotentHint", h)
	}
	if _, ok := c.Definition("write_file"); ok {
		t.Error("a name no server registered has a definition")
	}

	// write says nothing of itself; the person declared it, and pid.
	for _, n := range []string{"mcp__t__write", "mcp__t__pid"} {
		tool := reg.GetTool(n)
		if !tool.ReadOnly || tool.ConcurrencySafe == nil || !*tool.ConcurrencySafe || !tool.Idempotent {
			t.Errorf("%s: ReadOnly %v, ConcurrencySafe %v, Idempotent %v; want all true (declared read-only)", n, tool.ReadOnly, tool.ConcurrencySafe, tool.Idempotent)
		}
	}
	if got := w.joined(); !strings.Contains(got, `mcp server t: the tools declared read-only ["wirte"] are not among the tools it offers`) {
		t.Errorf("warnings %q, want one naming the unknown declaration", got)
	}

	// A model's call: the hinted tool asks (and without an approver is
	// refused, unrun); the declared one runs.
	e := executor.New(reg)
	res := e.Invoke(ctxT(t), core.Call{Name: "mcp__t__echo", Args: json.RawMessage(`{"text":"x"}`), Origin: core.OriginModel})
	if res.Kind() != core.KindRejected || !errors.Is(res.Err, core.ErrNeedsApproval) {
		t.Errorf("model's call of echo: %s %v, want rejected: needs approval", res.Kind(), res.Err)
	}
	if _, echoes := st.counts(); echoes != 0 {
		t.Errorf("the server ran echo %d times for a call that needed approval", echoes)
	}
	res = e.Invoke(ctxT(t), core.Call{Name: "mcp__t__write", Args: json.RawMessage(`{}`), Origin: core.OriginModel})
	wantOK(t, res, "wrote")
}

func TestReadOnlyConfigErrors(t *testing.T) {
	cfg := newMem(newState(false)).config("t")
	cfg.ReadOnly = []string{"echo", ""}
	_, err := NewClient(core.NewRegistry()).Add(ctxT(t), cfg)
	if err == nil || err.Error() != "mcp server t: ReadOnly holds an empty tool name" {
		t.Fatalf("got %v", err)
	}
}
