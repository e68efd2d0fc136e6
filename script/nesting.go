package script

import (
	"context"
	"fmt"
)

// MaxNesting bounds how deeply script calls may nest: a tool that invokes
// a tool that invokes a tool, and so on. Every level holds an interpreter
// thread and Go stack, so a tool that calls itself without end would
// otherwise run until memory is gone.
const MaxNesting = 100

type nestingKey struct{}

// nested returns ctx one invoke_tool level deeper, or an error when that
// passes MaxNesting.
func nested(ctx context.Context) (context.Context, error) {
	depth, _ := ctx.Value(nestingKey{}).(int)
	if depth >= MaxNesting {
		return nil, fmt.Errorf("calls nested more than %d deep (does a tool invoke itself without end?)", MaxNesting)
	}
	return context.WithValue(ctx, nestingKey{}, depth+1), nil
}
