// Command minstar is the start-up floor the benchmark harness measures
// `agentsh run FILE.star` against: go.starlark.net alone, running one file
// with the same dialect options as agentsh and print going to stdout.
//
// It lives under testdata so that `go list ./...` does not see it: only
// the bindings may import an interpreter (deps_test.go), and this program
// is a measuring stick, not part of agentsh. The harness builds it with
// `go build ./internal/benchrun/testdata/minstar`.
//
//	minstar FILE.star
package main

import (
	"fmt"
	"os"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: minstar FILE.star")
		os.Exit(2)
	}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}
	thread := &starlark.Thread{Name: "main", Print: func(_ *starlark.Thread, msg string) { fmt.Println(msg) }}
	if _, err := starlark.ExecFileOptions(opts, thread, os.Args[1], nil, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
