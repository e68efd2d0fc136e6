package script

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// deepList returns n lists, each holding the next; the innermost holds leaf.
func deepList(n int, leaf any) any {
	v := leaf
	for i := 0; i < n; i++ {
		v = []any{v}
	}
	return v
}

func TestWalkPath(t *testing.T) {
	w := NewWalk("args")
	defer w.Done()
	if got := w.Path(); got != "args" {
		t.Errorf("root path = %q", got)
	}
	mustNil(t, w.Enter(nil))
	w.Key(`k"ey`)
	mustNil(t, w.Enter(nil))
	w.Index(2)
	mustNil(t, w.Enter(nil))
	w.Field("name")
	if got, want := w.Path(), `args["k\"ey"][2].name`; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	w.Leave()
	if got, want := w.Path(), `args["k\"ey"][2]`; got != want {
		t.Errorf("after Leave, path = %q, want %q", got, want)
	}
	mustNil(t, w.Enter(nil)) // entered, no element chosen: the container itself
	if got, want := w.Path(), `args["k\"ey"][2]`; got != want {
		t.Errorf("path of an open container = %q, want %q", got, want)
	}
}

// TestWalkPathIsShort: a deep path keeps its first and last steps, and a
// long key is cut, so a message stays readable whatever the value.
func TestWalkPathIsShort(t *testing.T) {
	w := NewWalk("")
	defer w.Done()
	for i := 0; i < 500; i++ {
		mustNil(t, w.Enter(nil))
		w.Index(i)
	}
	if got, want := w.Path(), "[0][1][2][3][4][5][6][7]…[496][497][498][499]"; got != want {
		t.Errorf("deep path = %q, want %q", got, want)
	}
	w2 := NewWalk("")
	defer w2.Done()
	mustNil(t, w2.Enter(nil))
	w2.Key(strings.Repeat("é", 100))
	got := w2.Path()
	if want := `["` + strings.Repeat("é", 32) + `…"]`; got != want {
		t.Errorf("long key path = %q, want %q", got, want)
	}
}

func TestCheckValueCyclesAndDepth(t *testing.T) {
	self := []any{"a", nil}
	self[1] = self
	m := map[string]any{"k": int64(1)}
	m["self"] = []any{m}
	// A cycle longer than the levels searched one by one.
	ring := make([]any, 1)
	v := any(ring)
	for i := 0; i < 3*nearLevels; i++ {
		v = []any{v}
	}
	ring[0] = v
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"list", self, "value at args[1] contains itself, which JSON cannot represent"},
		{"map", m, `value at args["self"][0] contains itself`},
		{"far ring", ring, "value at args[0][0][0][0][0][0][0][0]…[0][0][0][0] contains itself"},
		{"too deep", deepList(MaxDepth+1, int64(1)), "value at args[0][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels"},
	} {
		err := CheckValue(tc.v, "args")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckValue = %v, want %q", tc.name, err, tc.want)
		}
		var ve *ValueError
		if !errors.As(err, &ve) || !strings.HasPrefix(ve.Path, "args[") {
			t.Errorf("%s: want a *ValueError with its path, got %#v", tc.name, err)
		}
		if _, err := EncodeJSON(tc.v); err == nil {
			t.Errorf("%s: EncodeJSON succeeded", tc.name)
		}
	}
	// Exactly MaxDepth levels, and a list that appears twice without
	// containing itself, are fine.
	mustNil(t, CheckValue(deepList(MaxDepth, int64(1)), ""))
	shared := []any{int64(1)}
	mustNil(t, CheckValue([]any{shared, shared, map[string]any{"again": shared}}, ""))
}

func TestDecodeJSONDepth(t *testing.T) {
	text := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, err := DecodeJSON(text(MaxDepth)); err != nil {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
	for _, n := range []int{MaxDepth + 1, 20000} { // encoding/json gives up at 10000
		_, err := DecodeJSON(text(n))
		if err == nil || !strings.Contains(err.Error(), "nested deeper than 1000 levels") {
			t.Errorf("%d levels: DecodeJSON error = %v, want nested deeper than 1000 levels", n, err)
		}
	}
	_, err := DecodeJSON([]byte(`{"a": [` + strings.Repeat(`{"b": [`, MaxDepth) + strings.Repeat("]}", MaxDepth) + "]}"))
	if err == nil || !strings.Contains(err.Error(), `value at ["a"][0]["b"][0]["b"][0]["b"][0]…["b"][0]["b"][0] is nested deeper than 1000 levels`) {
		t.Errorf("deep object: %v", err)
	}
}

// TestConversionPathsAreLazy: converting a deep value builds no path
// strings (it once built one per level, quadratic in the depth).
func TestConversionPathsAreLazy(t *testing.T) {
	deep := deepList(MaxDepth, "leaf")
	allocs := testing.AllocsPerRun(10, func() { mustNil(t, CheckValue(deep, "args")) })
	if allocs > 30 {
		t.Errorf("CheckValue of a %d-deep value: %.0f allocations, want a few", MaxDepth, allocs)
	}
	raw := []byte(strings.Repeat(`{"k":[`, MaxDepth/2) + strings.Repeat("]}", MaxDepth/2))
	base := testing.AllocsPerRun(5, func() {
		var v any
		mustNil(t, jsonUnmarshal(raw, &v))
	})
	allocs = testing.AllocsPerRun(5, func() {
		if _, err := DecodeJSON(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2*base+50 {
		t.Errorf("DecodeJSON of a %d-deep value: %.0f allocations, encoding/json alone %.0f", MaxDepth, allocs, base)
	}
}

func TestWalkCount(t *testing.T) {
	w := NewWalk("args")
	defer w.Done()
	mustNil(t, w.Count(MaxItems))
	err := w.Count(1)
	if err == nil || !strings.Contains(err.Error(), "args: value has more than 4194304 items in all") {
		t.Errorf("Count past MaxItems = %v", err)
	}
}

// TestWalkReuse: a walk given back after an error (left with open levels)
// starts clean.
func TestWalkReuse(t *testing.T) {
	self := []any{nil}
	self[0] = self
	for i := 0; i < 3; i++ {
		if err := CheckValue(self, "x"); err == nil || !strings.Contains(err.Error(), "value at x[0] contains itself") {
			t.Fatalf("round %d: %v", i, err)
		}
		mustNil(t, CheckValue([]any{[]any{int64(1)}}, "y"))
	}
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
