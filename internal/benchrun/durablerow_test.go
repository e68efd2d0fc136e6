package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckResults: a batch's results file passes only with every task,
// in order, exiting 0 and printing its number and its double.
func TestCheckResults(t *testing.T) {
	dir := t.TempDir()
	good := `{"index":0,"exit_code":0,"stdout":"0 0\n"}` + "\n" + `{"index":1,"exit_code":0,"stdout":"1 2\n"}` + "\n"
	for name, c := range map[string]struct {
		text, want string
		n          int
	}{
		"good":         {good, "", 2},
		"short":        {good, "has 2 results, want 3", 3},
		"long":         {good, "has 2 results, want 1", 1},
		"failed":       {`{"index":0,"exit_code":1,"stdout":"","error":"boom"}` + "\n", "task 0 exit 1 printed \"\" (boom)", 1},
		"wrong":        {`{"index":0,"exit_code":0,"stdout":"0 1\n"}` + "\n", `printed "0 1\n"`, 1},
		"out of order": {`{"index":1,"exit_code":0,"stdout":"1 2\n"}` + "\n", "line 1: task 1", 1},
		"not json":     {"{\n", "line 1:", 1},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkResults(p, c.n)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v; want it to pass", name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
	if err := checkResults(filepath.Join(dir, "absent.jsonl"), 1); err == nil {
		t.Error("an absent results file passed")
	}
}

// TestWriteTasks: n tasks, numbered from 0, one JSON object a line.
func TestWriteTasks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "tasks.jsonl")
	if err := writeTasks(p, 3); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if want := "{\"n\": 0}\n{\"n\": 1}\n{\"n\": 2}\n"; err != nil || string(b) != want {
		t.Errorf("got %q, %v; want %q", b, err, want)
	}
}
