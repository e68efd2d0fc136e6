package script

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/executor"
)

func TestState(t *testing.T) {
	ctx := context.Background()
	h := NewHost(executor.New(nil), nil)
	if v := h.StateGet(ctx, "k", "def"); v != "def" {
		t.Errorf("StateGet missing = %v", v)
	}
	mustNil(t, h.StateSet(ctx, "k", map[string]any{"a": []any{int64(1)}}))
	if v := Quote(h.StateGet(ctx, "k", nil)); v != `{"a":[1]}` {
		t.Errorf("StateGet = %s", v)
	}
	err := h.StateSet(ctx, "bad", map[string]any{"a": []any{math.Inf(1)}})
	if err == nil || err.Error() != `state["bad"]["a"][0]: +Inf is not a finite number and cannot be JSON` {
		t.Errorf("StateSet(bad) = %v", err)
	}
	if err := h.StateSet(ctx, "int", 3); err == nil || !strings.Contains(err.Error(), `state["int"]: a Go int is not a JSON value`) {
		t.Errorf("StateSet(Go int) = %v", err)
	}
	if _, ok := h.exec.Session().Get("bad"); ok {
		t.Error("a refused value was stored")
	}

	// StateIncr: missing and nil count as 0; non-ints are refused and kept.
	for i, want := range []int64{1, 4, -6} {
		n := []int64{1, 3, -10}[i]
		if v, err := h.StateIncr(ctx, "n", n); err != nil || v != want {
			t.Errorf("StateIncr step %d = %d, %v; want %d", i, v, err, want)
		}
	}
	mustNil(t, h.StateSet(ctx, "nil", nil))
	if v, err := h.StateIncr(ctx, "nil", 2); err != nil || v != 2 {
		t.Errorf("StateIncr(nil) = %d, %v", v, err)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"text", `state.incr: "x" holds a string, want an int`},
		{1.5, `state.incr: "x" holds a float, want an int`},
		{[]any{}, `state.incr: "x" holds a list, want an int`},
		{map[string]any{}, `state.incr: "x" holds a dict, want an int`},
		{true, `state.incr: "x" holds a bool, want an int`},
	} {
		mustNil(t, h.StateSet(ctx, "x", tc.v))
		v, err := h.StateIncr(ctx, "x", 1)
		if err == nil || err.Error() != tc.want || v != 0 {
			t.Errorf("StateIncr on %#v = %d, %v; want %q", tc.v, v, err, tc.want)
		}
		if got := Quote(h.StateGet(ctx, "x", nil)); got != Quote(tc.v) {
			t.Errorf("StateIncr changed a refused value: %s", got)
		}
	}

	h.StateDelete(ctx, "x")
	h.StateDelete(ctx, "never")
	if got := strings.Join(h.StateKeys(ctx), ","); got != "k,n,nil" {
		t.Errorf("StateKeys = %s", got)
	}
}

// TestStateIncrConcurrent: increments from many goroutines are exact.
func TestStateIncrConcurrent(t *testing.T) {
	ctx := context.Background()
	h := NewHost(executor.New(nil), nil)
	var wg sync.WaitGroup
	seen := make([]map[int64]bool, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		seen[g] = map[int64]bool{}
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				v, err := h.StateIncr(ctx, "c", 1)
				if err != nil {
					t.Error(err)
					return
				}
				seen[g][v] = true
			}
		}(g)
	}
	wg.Wait()
	if v := h.StateGet(ctx, "c", nil); v != int64(3200) {
		t.Fatalf("c = %v, want 3200", v)
	}
	// Every value 1..3200 was returned exactly once.
	all := map[int64]bool{}
	for _, s := range seen {
		for v := range s {
			if all[v] {
				t.Fatalf("value %d returned twice", v)
			}
			all[v] = true
		}
	}
	if len(all) != 3200 {
		t.Fatalf("%d distinct values", len(all))
	}
}

// StateIncr refuses to overflow and keeps the stored value.
func TestStateIncrOverflow(t *testing.T) {
	ctx := context.Background()
	h := NewHost(executor.New(nil), nil)
	mustNil(t, h.StateSet(ctx, "big", int64(math.MaxInt64-1)))
	if v, err := h.StateIncr(ctx, "big", 1); err != nil || v != math.MaxInt64 {
		t.Fatalf("up to MaxInt64: %d, %v", v, err)
	}
	if _, err := h.StateIncr(ctx, "big", 1); err == nil || !strings.Contains(err.Error(), "would overflow") {
		t.Fatalf("past MaxInt64: err %v, want an overflow error", err)
	}
	if v := h.StateGet(ctx, "big", nil); v != int64(math.MaxInt64) {
		t.Fatalf("after a refused increment the value is %v", v)
	}
	mustNil(t, h.StateSet(ctx, "small", int64(math.MinInt64)))
	if _, err := h.StateIncr(ctx, "small", -1); err == nil {
		t.Fatal("below MinInt64 accepted")
	}
}
