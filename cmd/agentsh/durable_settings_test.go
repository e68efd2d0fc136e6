package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentsh/agentsh"
)

// TestRunSettings: a run keeps its command and flags, without the flags
// about the run itself, with paths absolute; the script's own arguments
// are never read as flags, and the words come back after "--".
func TestRunSettings(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, c := range []struct {
		command string
		args    []string
		drop    map[string]bool
		want    []string
	}{
		{"run", []string{"run", "--durable", "--run-id", "r1", "--load", "p.star", "--json", "t.star", "--db", "x", "--load", "y"}, durableFlags,
			[]string{"run", "--load", abs("p.star"), "--json"}},
		{"run", []string{"--db=sqlite:a.db", "--model=replay:rec.jsonl", "--mode", "serial", "t.star"}, durableFlags,
			[]string{"run", "--model=replay:" + abs("rec.jsonl"), "--mode", "serial"}},
		{"ask", []string{"ask", "--durable", "fix", "--max-turns", "3", "the tests"}, durableFlags,
			[]string{"ask", "--max-turns", "3"}},
		{"batch", []string{"batch", "tasks.jsonl", "--script", "s.star", "--out", "r.jsonl", "--workers", "2", "--prices", "p.json"}, map[string]bool{"script": true, "out": true, "workers": true},
			[]string{"batch", "--prices", abs("p.json")}},
	} {
		if got := runSettings(c.command, c.args, c.drop); !slices.Equal(got, c.want) {
			t.Errorf("runSettings(%q, %q)\n got %q\nwant %q", c.command, c.args, got, c.want)
		}
	}
	if got, want := batchSettings([]string{"batch", "t.jsonl", "--script", "s.star", "--out", "o", "--db", "d", "--json"}), []string{"run", "--json"}; !slices.Equal(got, want) {
		t.Errorf("batchSettings: got %q, want %q", got, want)
	}
	spec := agentsh.RunSpec{Settings: []string{"run", "--json"}, Script: "/s.star", Args: []string{"--db", "x"}}
	o, err := parseArgs(runArgs(spec))
	if err != nil {
		t.Fatal(err)
	}
	if o.command != "run" || !o.jsonOut || o.db != "" || !slices.Equal(o.positional, []string{"/s.star", "--db", "x"}) {
		t.Errorf("the run's command line: command %q, json %v, db %q, positional %q; want the script's own --db among its arguments", o.command, o.jsonOut, o.db, o.positional)
	}
	ask := agentsh.RunSpec{Settings: []string{"ask"}, Prompt: "fix the tests"}
	if o, err = parseArgs(runArgs(ask)); err != nil || o.command != "ask" || !slices.Equal(o.positional, []string{"fix the tests"}) {
		t.Errorf("the ask's command line: %v, %+v", err, o)
	}
}
