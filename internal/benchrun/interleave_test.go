package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSchedule(t *testing.T) {
	got := schedule(3, 2)
	want := []slot{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("schedule(3, 2) = %v, want round-robin %v", got, want)
	}
	if got := schedule(2, 0); len(got) != 0 {
		t.Errorf("schedule(2, 0) = %v, want nothing", got)
	}
}

// TestMeasureOrder runs variants that log their name and checks the order
// the runs happened in: one warm-up each, then round-robin; a variant
// that fails its warm-up is not timed, and the others still are.
func TestMeasureOrder(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	logs := func(name string, code int) variant {
		return variant{name: name, p: pipeline{{path: "sh", args: []string{"-c", `echo "$1" >>"$2"; exit "$3"`, "sh", name, log, strconv.Itoa(code)}}}}
	}
	vs := []variant{logs("base", 0), logs("new", 0), logs("broken", 1), logs("peer", 0)}
	ms, err := measure(context.Background(), direct, vs, 3, dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(data))
	want := []string{"base", "new", "broken", "peer", "base", "new", "peer", "base", "new", "peer", "base", "new", "peer"}
	if !slices.Equal(got, want) {
		t.Errorf("runs happened in the order %v, want %v", got, want)
	}
	for i, n := range []int{3, 3, 0, 3} {
		if len(ms[i].samples) != n {
			t.Errorf("%s: %d timed runs, want %d", vs[i].name, len(ms[i].samples), n)
		}
	}
	if ms[2].err == nil || !strings.Contains(ms[2].err.Error(), "warm-up") {
		t.Errorf("broken variant: error %v, want its warm-up failure", ms[2].err)
	}
}

func TestMeasureVerifyFailure(t *testing.T) {
	v := variant{name: "wrong", p: pipeline{{path: "echo", args: []string{"b.go"}}},
		verify: verifyAgainst(func() ([]record, error) { return []record{{path: "a.go"}}, nil })}
	ms, err := measure(context.Background(), direct, []variant{v}, 2, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].err == nil || len(ms[0].samples) != 0 {
		t.Fatalf("a variant whose output is wrong was timed (%d runs, error %v); want it failed and not timed", len(ms[0].samples), ms[0].err)
	}
	if want := `got "b.go", want "a.go"`; !strings.Contains(ms[0].err.Error(), want) {
		t.Errorf("error %q does not name the difference %s", ms[0].err, want)
	}
}
