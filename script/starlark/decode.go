package starlark

import (
	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
)

// builder makes Starlark values straight from JSON text (script.DecodeAs):
// the values fromGo makes of DecodeJSON's shapes, without the shapes.
type builder struct{}

var _ script.Builder[star.Value] = builder{}

func (builder) Null() star.Value                    { return star.None }
func (builder) Bool(b bool) star.Value              { return star.Bool(b) }
func (builder) Int(i int64) (star.Value, error)     { return star.MakeInt64(i), nil }
func (builder) Float(f float64) (star.Value, error) { return star.Float(f), nil }
func (builder) String(s string) star.Value          { return star.String(s) }
func (builder) Array(elems []star.Value) star.Value { return star.NewList(elems) }

// Object inserts the members in the sorted order they arrive in, as
// fromGo does, so iteration is deterministic.
func (builder) Object(keys []string, vals []star.Value) star.Value {
	d := star.NewDict(len(keys))
	for i, k := range keys {
		_ = d.SetKey(star.String(k), vals[i]) // a new dict of string keys: cannot fail
	}
	return d
}
