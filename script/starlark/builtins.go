package starlark

import (
	"fmt"
	gomath "math"
	"time"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"go.starlark.net/lib/math"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// builtinFunc is the signature of a Starlark built-in.
type builtinFunc = func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error)

// builtins returns the predeclared names of every script.
func (in *Interp) builtins() star.StringDict {
	argv := make([]star.Value, len(in.opts.Argv))
	for i, a := range in.opts.Argv {
		argv[i] = star.String(a)
	}
	argvList := star.NewList(argv)
	argvList.Freeze()
	d := star.StringDict{
		"tool":            star.NewBuiltin("tool", in.builtinTool),
		"before":          star.NewBuiltin("before", in.hookBuiltin("before", in.host.Before)),
		"after":           star.NewBuiltin("after", in.hookBuiltin("after", in.host.After)),
		"middleware":      star.NewBuiltin("middleware", in.builtinMiddleware),
		"deny":            star.NewBuiltin("deny", builtinDeny),
		"rewrite":         star.NewBuiltin("rewrite", builtinRewrite),
		"invoke_tool":     star.NewBuiltin("invoke_tool", in.builtinInvokeTool),
		"invoke_all":      star.NewBuiltin("invoke_all", in.builtinInvokeAll),
		"tool_names":      star.NewBuiltin("tool_names", in.builtinToolNames),
		"get_tool":        star.NewBuiltin("get_tool", in.builtinGetTool),
		"unregister_tool": star.NewBuiltin("unregister_tool", in.builtinUnregisterTool),
		"config":          star.NewBuiltin("config", in.builtinConfig),
		"dual":            star.NewBuiltin("dual", builtinDual),
		"silent":          star.NewBuiltin("silent", builtinSilent),
		"timeout":         star.NewBuiltin("timeout", builtinTimeout),
		"retry":           star.NewBuiltin("retry", builtinRetry),
		"struct":          star.NewBuiltin("struct", starlarkstruct.Make),
		"argv":            argvList,
		"math":            math.Module,
	}
	for _, m := range in.host.Modules() {
		d[m.Name] = newModuleValue(m)
	}
	for _, b := range in.host.Builtins() {
		d[b.Name] = star.NewBuiltin(b.Name, in.hostBuiltin(b))
	}
	if in.opts.Testing {
		for k, v := range in.testingBuiltins() {
			d[k] = v
		}
	}
	d.Freeze()
	return d
}

// Names returns the predeclared names, for completion.
func (in *Interp) Names() []string { return in.predeclared.Keys() }

// toolsArg accepts tools=None, a string, or a list of strings.
func toolsArg(fn string, v star.Value) ([]string, error) {
	switch x := v.(type) {
	case star.NoneType:
		return nil, nil
	case star.String:
		return []string{string(x)}, nil
	case star.Iterable:
		var out []string
		it := x.Iterate()
		defer it.Done()
		var e star.Value
		for it.Next(&e) {
			s, ok := e.(star.String)
			if !ok {
				return nil, fmt.Errorf("%s: tools must be strings (names or globs), got %s", fn, e.Type())
			}
			out = append(out, string(s))
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: tools is an empty list; omit it for a global hook", fn)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: tools must be a list of names or globs, got %s", fn, v.Type())
}

func (in *Interp) builtinTool(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var (
		name, description string
		fn                star.Callable
		parameters        star.Value = star.None
		safe              star.Value = star.None
		idempotent, repl  bool
	)
	if err := star.UnpackArgs("tool", args, kwargs, "name", &name, "fn", &fn, "description?", &description,
		"parameters?", &parameters, "concurrency_safe?", &safe, "idempotent?", &idempotent, "replace?", &repl); err != nil {
		return nil, err
	}
	spec := script.ToolSpec{Name: name, Description: description, Idempotent: idempotent, Replace: repl}
	if parameters != star.None {
		p, err := toGo(parameters, "parameters")
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", name, err)
		}
		spec.Parameters = p
	}
	switch s := safe.(type) {
	case star.NoneType:
	case star.Bool:
		v := bool(s)
		spec.ConcurrencySafe = &v
	default:
		return nil, fmt.Errorf("tool %q: concurrency_safe must be True, False or None, got %s", name, safe.Type())
	}
	spec.Fn = in.register(fn)
	if err := in.host.DefineTool(spec); err != nil {
		return nil, err
	}
	return star.None, nil
}

func (in *Interp) hookArgs(fname string, args star.Tuple, kwargs []star.Tuple) (star.Value, []string, error) {
	var fn star.Value
	var tools star.Value = star.None
	if err := star.UnpackArgs(fname, args, kwargs, "fn", &fn, "tools?", &tools); err != nil {
		return nil, nil, err
	}
	names, err := toolsArg(fname, tools)
	return fn, names, err
}

// hookBuiltin returns before or after: fn(…) registered with add.
func (in *Interp) hookBuiltin(name string, add func(script.Func, []string) error) builtinFunc {
	return func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		fn, tools, err := in.hookArgs(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		c, ok := fn.(star.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: fn must be a function, got %s", name, fn.Type())
		}
		return star.None, add(in.register(c), tools)
	}
}

func (in *Interp) builtinMiddleware(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	fn, tools, err := in.hookArgs("middleware", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch m := fn.(type) {
	case *middlewareValue:
		return star.None, in.host.UseMiddleware(m.mw, tools)
	case star.Callable:
		return star.None, in.host.Middleware(in.register(m), tools)
	}
	return nil, fmt.Errorf("middleware: want a function fn(call, next) or timeout(...)/retry(...), got %s", fn.Type())
}

func builtinDeny(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var reason string
	if err := star.UnpackPositionalArgs("deny", args, kwargs, 1, &reason); err != nil {
		return nil, err
	}
	return denyValue{reason: reason}, nil
}

func builtinRewrite(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var v star.Value
	if err := star.UnpackPositionalArgs("rewrite", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	g, err := toGo(v, "args")
	if err != nil {
		return nil, fmt.Errorf("rewrite: %w", err)
	}
	m, ok := g.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("rewrite: want a dict of arguments, got %s", v.Type())
	}
	return &rewriteValue{args: m}, nil
}

// argsValue converts invoke_tool's args: a dict (or any value, which the
// pipeline refuses unless it is an object) or a string of raw JSON.
func argsValue(v star.Value, path string) (any, error) {
	if s, ok := v.(star.String); ok {
		return string(s), nil
	}
	return toGo(v, path)
}

func (in *Interp) builtinInvokeTool(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var name, dedup string
	var a star.Value = star.None
	if err := star.UnpackArgs("invoke_tool", args, kwargs, "name", &name, "args?", &a, "dedup_key?", &dedup); err != nil {
		return nil, err
	}
	g, err := argsValue(a, "args")
	if err != nil {
		return nil, fmt.Errorf("invoke_tool %s: %w", name, err)
	}
	res, err := in.host.InvokeTool(threadContext(t), name, g, dedup)
	if err != nil {
		return nil, fmt.Errorf("invoke_tool %s: %w", name, err)
	}
	return &resultValue{info: res}, nil
}

func (in *Interp) builtinInvokeAll(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var calls star.Iterable
	var mode string
	var conc star.Value = star.None
	if err := star.UnpackArgs("invoke_all", args, kwargs, "calls", &calls, "mode?", &mode, "concurrency?", &conc); err != nil {
		return nil, err
	}
	concurrency := -1
	if conc != star.None {
		n, err := intArg("invoke_all", conc, "concurrency")
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, fmt.Errorf("invoke_all: concurrency got %d, want 0 (the default, %d at a time) or more", n, executor.DefaultConcurrency)
		}
		concurrency = n
	}
	var specs []script.CallSpec
	it := calls.Iterate()
	defer it.Done()
	var c star.Value
	for i := 0; it.Next(&c); i++ {
		spec, err := callSpec(c, i)
		if err != nil {
			return nil, fmt.Errorf("invoke_all: %w", err)
		}
		specs = append(specs, spec)
	}
	results, err := in.host.InvokeAll(threadContext(t), specs, mode, concurrency)
	if err != nil {
		return nil, fmt.Errorf("invoke_all: %w", err)
	}
	out := make([]star.Value, len(results))
	for i, r := range results {
		out[i] = &resultValue{info: r}
	}
	return star.NewList(out), nil
}

// callSpec accepts (name, args), (name, args, dedup_key) or a dict with
// name, args and dedup_key.
func callSpec(v star.Value, i int) (script.CallSpec, error) {
	bad := fmt.Errorf("calls[%d]: want (name, args) or {\"name\": ..., \"args\": ...}, got %s", i, v.Type())
	switch x := v.(type) {
	case star.Tuple, *star.List:
		seq := x.(star.Indexable)
		if seq.Len() < 1 || seq.Len() > 3 {
			return script.CallSpec{}, bad
		}
		name, ok := seq.Index(0).(star.String)
		if !ok {
			return script.CallSpec{}, fmt.Errorf("calls[%d][0]: tool name must be a string, got %s", i, seq.Index(0).Type())
		}
		spec := script.CallSpec{Name: string(name)}
		if seq.Len() > 1 {
			a, err := argsValue(seq.Index(1), fmt.Sprintf("calls[%d][1]", i))
			if err != nil {
				return spec, err
			}
			spec.Args = a
		}
		if seq.Len() > 2 {
			k, ok := seq.Index(2).(star.String)
			if !ok {
				return spec, fmt.Errorf("calls[%d][2]: dedup key must be a string, got %s", i, seq.Index(2).Type())
			}
			spec.DedupKey = string(k)
		}
		return spec, nil
	case *star.Dict:
		var spec script.CallSpec
		for _, item := range x.Items() {
			k, _ := item[0].(star.String)
			switch k {
			case "name":
				s, ok := item[1].(star.String)
				if !ok {
					return spec, fmt.Errorf("calls[%d][\"name\"]: want a string, got %s", i, item[1].Type())
				}
				spec.Name = string(s)
			case "args":
				a, err := argsValue(item[1], fmt.Sprintf("calls[%d][\"args\"]", i))
				if err != nil {
					return spec, err
				}
				spec.Args = a
			case "dedup_key":
				s, ok := item[1].(star.String)
				if !ok {
					return spec, fmt.Errorf("calls[%d][\"dedup_key\"]: want a string, got %s", i, item[1].Type())
				}
				spec.DedupKey = string(s)
			default:
				return spec, fmt.Errorf("calls[%d]: unknown key %s (want name, args, dedup_key)", i, item[0])
			}
		}
		if spec.Name == "" {
			return spec, fmt.Errorf("calls[%d]: missing \"name\"", i)
		}
		return spec, nil
	}
	return script.CallSpec{}, bad
}

func (in *Interp) builtinToolNames(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	if err := star.UnpackPositionalArgs("tool_names", args, kwargs, 0); err != nil {
		return nil, err
	}
	return fromGo(in.host.ToolNames())
}

func (in *Interp) builtinGetTool(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var name string
	if err := star.UnpackPositionalArgs("get_tool", args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	info := in.host.GetTool(name)
	if info == nil {
		return star.None, nil
	}
	return fromGo(info)
}

func (in *Interp) builtinUnregisterTool(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var name string
	if err := star.UnpackPositionalArgs("unregister_tool", args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	return star.None, in.host.UnregisterTool(name)
}

// builtinConfig is config(**settings): every keyword is a host setting.
func (in *Interp) builtinConfig(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("config: settings are keywords, such as config(mode = \"mixed\")")
	}
	update := make(map[string]any, len(kwargs))
	for _, kv := range kwargs {
		name := string(kv[0].(star.String))
		v, err := toGo(kv[1], name)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		update[name] = v
	}
	cur, err := in.host.Config(update)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return fromGo(cur)
}

func builtinDual(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var forLLM, forUser string
	if err := star.UnpackArgs("dual", args, kwargs, "for_llm", &forLLM, "for_user", &forUser); err != nil {
		return nil, err
	}
	return dualValue{forLLM: forLLM, forUser: forUser}, nil
}

func builtinSilent(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var forLLM string
	if err := star.UnpackArgs("silent", args, kwargs, "for_llm", &forLLM); err != nil {
		return nil, err
	}
	return silentValue{forLLM: forLLM}, nil
}

// durationArg accepts "2s"-style strings, time.duration values, and
// numbers of seconds.
func durationArg(fn string, v star.Value) (string, error) {
	switch x := v.(type) {
	case star.String:
		return string(x), nil
	case *objectValue:
		if d, ok := x.o.(script.DurationValue); ok {
			return time.Duration(d).String(), nil
		}
	case star.Int, star.Float:
		f, _ := star.AsFloat(x)
		if f*float64(time.Second) >= gomath.MaxInt64 || f*float64(time.Second) <= gomath.MinInt64 {
			return "", fmt.Errorf("%s: %v seconds is out of range (at most about 292 years)", fn, x)
		}
		return time.Duration(f * float64(time.Second)).String(), nil
	}
	return "", fmt.Errorf("%s: want a duration such as \"2s\" or a number of seconds, got %s", fn, v.Type())
}

func builtinTimeout(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var d star.Value
	if err := star.UnpackPositionalArgs("timeout", args, kwargs, 1, &d); err != nil {
		return nil, err
	}
	s, err := durationArg("timeout", d)
	if err != nil {
		return nil, err
	}
	mw, err := script.Timeout(s)
	if err != nil {
		return nil, err
	}
	return &middlewareValue{mw: mw}, nil
}

func builtinRetry(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	attempts := 3
	var backoff star.Value = star.None
	if err := star.UnpackArgs("retry", args, kwargs, "attempts?", &attempts, "backoff?", &backoff); err != nil {
		return nil, err
	}
	var s string
	if backoff != star.None {
		var err error
		if s, err = durationArg("retry", backoff); err != nil {
			return nil, err
		}
	}
	mw, err := script.Retry(attempts, s)
	if err != nil {
		return nil, err
	}
	return &middlewareValue{mw: mw}, nil
}

// hostBuiltin exposes a builtin a Go program added to the host: script
// functions among the arguments become script.Funcs (registered, so
// frozen), results come back as Starlark values (a Record as a struct).
func (in *Interp) hostBuiltin(b script.Builtin) builtinFunc {
	arg := func(v star.Value, name string) (any, error) {
		if c, ok := v.(star.Callable); ok {
			if _, isNext := v.(*nextValue); !isNext {
				return in.register(c), nil
			}
		}
		return toGo(v, name)
	}
	return func(t *star.Thread, _ *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		params := b.Params
		positional := make([]any, len(args))
		for i, v := range args {
			name := "argument"
			if i < len(params) {
				name = params[i].Name
			}
			g, err := arg(v, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name, err)
			}
			positional[i] = g
		}
		named := make(map[string]any, len(kwargs))
		for _, kv := range kwargs {
			k := string(kv[0].(star.String))
			g, err := arg(kv[1], k)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name, err)
			}
			named[k] = g
		}
		bound, err := b.Bind(positional, named)
		if err != nil {
			return nil, err
		}
		out, err := b.Fn(threadContext(t), bound)
		if err != nil {
			return nil, err
		}
		v, err := fromGo(out)
		if err != nil {
			return nil, fmt.Errorf("%s: result: %w", b.Name, err)
		}
		return v, nil
	}
}
