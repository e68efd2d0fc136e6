package starlark

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/stdlib"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// builtinFunc is the signature of a Starlark built-in.
type builtinFunc = func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error)

func newModule(name string, members map[string]builtinFunc) *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: name, Members: star.StringDict{}}
	for k, fn := range members {
		m.Members[k] = star.NewBuiltin(name+"."+k, fn)
	}
	m.Members.Freeze()
	return m
}

// jsonModule: encode, encode_indent, decode, indent. Object keys come out
// sorted, in every language.
var jsonModule = newModule("json", map[string]builtinFunc{
	"encode": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var x star.Value
		if err := star.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		v, err := toGo(x, "")
		if err != nil {
			return nil, fmt.Errorf("json.encode: %w", err)
		}
		s, err := stdlib.JSONEncode(v)
		return star.String(s), err
	},
	"encode_indent": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var x star.Value
		prefix, indent := "", "\t"
		if err := star.UnpackArgs(b.Name(), args, kwargs, "x", &x, "prefix?", &prefix, "indent?", &indent); err != nil {
			return nil, err
		}
		v, err := toGo(x, "")
		if err != nil {
			return nil, fmt.Errorf("json.encode_indent: %w", err)
		}
		s, err := stdlib.JSONEncodeIndent(v, prefix, indent)
		return star.String(s), err
	},
	"decode": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var s string
		var def star.Value
		if err := star.UnpackArgs(b.Name(), args, kwargs, "x", &s, "default?", &def); err != nil {
			return nil, err
		}
		v, err := stdlib.JSONDecode(s)
		if err != nil {
			if def != nil {
				return def, nil
			}
			return nil, err
		}
		return fromGo(v)
	},
	"indent": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var s string
		prefix, indent := "", "\t"
		if err := star.UnpackArgs(b.Name(), args, kwargs, "str", &s, "prefix?", &prefix, "indent?", &indent); err != nil {
			return nil, err
		}
		out, err := stdlib.JSONIndent(s, prefix, indent)
		return star.String(out), err
	},
})

// reModule: search, match, fullmatch, findall, sub, split, escape (RE2).
var reModule = newModule("re", map[string]builtinFunc{
	"search":    matchFunc(stdlib.Search),
	"match":     matchFunc(stdlib.MatchStart),
	"fullmatch": matchFunc(stdlib.FullMatch),
	"findall": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var pattern, s string
		if err := star.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "string", &s); err != nil {
			return nil, err
		}
		out, err := stdlib.FindAll(threadContext(t), pattern, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		return fromGo(out)
	},
	"sub": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var pattern, repl, s string
		count := 0
		if err := star.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "repl", &repl, "string", &s, "count?", &count); err != nil {
			return nil, err
		}
		out, err := stdlib.Sub(threadContext(t), pattern, repl, s, count)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		return star.String(out), nil
	},
	"split": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var pattern, s string
		maxsplit := 0
		if err := star.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "string", &s, "maxsplit?", &maxsplit); err != nil {
			return nil, err
		}
		out, err := stdlib.Split(threadContext(t), pattern, s, maxsplit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		return fromGo(out)
	},
	"escape": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var s string
		if err := star.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &s); err != nil {
			return nil, err
		}
		return star.String(stdlib.Escape(s)), nil
	},
})

func matchFunc(find func(ctx context.Context, pattern, s string) (*stdlib.Match, error)) builtinFunc {
	return func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var pattern, s string
		if err := star.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "string", &s); err != nil {
			return nil, err
		}
		m, err := find(threadContext(t), pattern, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		if m == nil {
			return star.None, nil
		}
		return &matchValue{m: m}, nil
	}
}

// matchValue is a regular expression match with Python's methods: group,
// groups, groupdict, start, end, span.
type matchValue struct{ m *stdlib.Match }

var _ star.HasAttrs = (*matchValue)(nil)

func (m *matchValue) String() string        { return fmt.Sprintf("<match %q>", m.m.Groups[0].Text) }
func (m *matchValue) Type() string          { return "match" }
func (m *matchValue) Freeze()               {}
func (m *matchValue) Truth() star.Bool      { return true }
func (m *matchValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: match") }
func (m *matchValue) AttrNames() []string {
	return []string{"end", "group", "groupdict", "groups", "span", "start"}
}

func (m *matchValue) Attr(name string) (star.Value, error) {
	switch name {
	case "group":
		return star.NewBuiltin("group", m.group), nil
	case "groups":
		return star.NewBuiltin("groups", m.groups), nil
	case "groupdict":
		return star.NewBuiltin("groupdict", m.groupdict), nil
	case "start", "end", "span":
		return star.NewBuiltin(name, m.position), nil
	}
	return nil, nil
}

// index resolves a group given as an int or a name.
func (m *matchValue) index(fn string, v star.Value) (int, error) {
	switch x := v.(type) {
	case star.Int:
		i, ok := x.Int64()
		if ok && i >= 0 && int(i) < len(m.m.Groups) {
			return int(i), nil
		}
	case star.String:
		if i := m.m.GroupIndex(string(x)); i >= 0 {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: no such group %s (the pattern has %d)", fn, v, len(m.m.Groups)-1)
}

func groupValue(g stdlib.Group) star.Value {
	if !g.Matched {
		return star.None
	}
	return star.String(g.Text)
}

func (m *matchValue) group(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var n star.Value = star.MakeInt(0)
	if err := star.UnpackPositionalArgs("group", args, kwargs, 0, &n); err != nil {
		return nil, err
	}
	i, err := m.index("group", n)
	if err != nil {
		return nil, err
	}
	return groupValue(m.m.Groups[i]), nil
}

func (m *matchValue) groups(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var def star.Value = star.None
	if err := star.UnpackPositionalArgs("groups", args, kwargs, 0, &def); err != nil {
		return nil, err
	}
	out := make(star.Tuple, len(m.m.Groups)-1)
	for i, g := range m.m.Groups[1:] {
		out[i] = groupValue(g)
		if !g.Matched {
			out[i] = def
		}
	}
	return out, nil
}

func (m *matchValue) groupdict(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	if err := star.UnpackPositionalArgs("groupdict", args, kwargs, 0); err != nil {
		return nil, err
	}
	d := star.NewDict(len(m.m.Names))
	for i, n := range m.m.Names {
		if n != "" {
			_ = d.SetKey(star.String(n), groupValue(m.m.Groups[i]))
		}
	}
	return d, nil
}

func (m *matchValue) position(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var n star.Value = star.MakeInt(0)
	if err := star.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &n); err != nil {
		return nil, err
	}
	i, err := m.index(b.Name(), n)
	if err != nil {
		return nil, err
	}
	g := m.m.Groups[i]
	switch b.Name() {
	case "start":
		return star.MakeInt(g.Start), nil
	case "end":
		return star.MakeInt(g.End), nil
	}
	return star.Tuple{star.MakeInt(g.Start), star.MakeInt(g.End)}, nil
}

// stateModule: get, set, incr, delete, keys — the session store shared by
// every call, safe across goroutines and languages.
func (in *Interp) stateModule() *starlarkstruct.Module {
	h := in.host
	return newModule("state", map[string]builtinFunc{
		"get": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			var key string
			var def star.Value = star.None
			if err := star.UnpackArgs(b.Name(), args, kwargs, "key", &key, "default?", &def); err != nil {
				return nil, err
			}
			v := h.StateGet(key, nil)
			if v == nil {
				return def, nil
			}
			return fromGo(v)
		},
		"set": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			var key string
			var x star.Value
			if err := star.UnpackArgs(b.Name(), args, kwargs, "key", &key, "value", &x); err != nil {
				return nil, err
			}
			v, err := toGo(x, fmt.Sprintf("state[%q]", key))
			if err != nil {
				return nil, fmt.Errorf("state.set: %w", err)
			}
			return star.None, h.StateSet(key, v)
		},
		"incr": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			var key string
			n := 1
			if err := star.UnpackArgs(b.Name(), args, kwargs, "key", &key, "n?", &n); err != nil {
				return nil, err
			}
			v, err := h.StateIncr(key, int64(n))
			if err != nil {
				return nil, err
			}
			return star.MakeInt64(v), nil
		},
		"delete": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			var key string
			if err := star.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &key); err != nil {
				return nil, err
			}
			h.StateDelete(key)
			return star.None, nil
		},
		"keys": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			if err := star.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			return fromGo(h.StateKeys())
		},
	})
}
