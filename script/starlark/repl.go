package starlark

import (
	"context"
	"sort"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// replGlobals returns the persistent globals of Exec and EvalChunk.
func (in *Interp) replGlobals() star.StringDict {
	if in.globals == nil {
		in.globals = star.StringDict{}
		for k, v := range in.predeclared {
			in.globals[k] = v
		}
	}
	return in.globals
}

// replOptions are the dialect at the REPL and in snippets: what load()
// binds stays bound for the next input, as in go.starlark.net's REPL.
var replOptions = func() *syntax.FileOptions {
	o := *fileOptions
	o.LoadBindsGlobally = true
	return &o
}()

// ReadChunk reads one REPL input with readline (see script.Interp) and
// returns its source.
func (in *Interp) ReadChunk(readline func() ([]byte, error)) ([]byte, error) {
	var src []byte
	_, err := ReadChunk("<stdin>", func() ([]byte, error) {
		line, err := readline()
		src = append(src, line...)
		return line, err
	})
	if err != nil {
		return nil, err
	}
	return src, nil
}

// Chunk is one parsed REPL input: a statement, or a compound statement
// that spanned several lines.
type Chunk struct{ f *syntax.File }

// ReadChunk reads one chunk with readline, which is called again while the
// input is incomplete (an open block or bracket). readline returns io.EOF
// at the end of input; ReadChunk returns it when no chunk was started.
func ReadChunk(filename string, readline func() ([]byte, error)) (*Chunk, error) {
	var readErr error
	f, err := replOptions.ParseCompoundStmt(filename, func() ([]byte, error) {
		line, err := readline()
		if err != nil {
			readErr = err
		}
		return line, err
	})
	if err != nil {
		if readErr != nil {
			// The parser reports input errors as syntax errors; give the
			// caller the reader's own error (io.EOF, an abort).
			return nil, readErr
		}
		return nil, wrapError(err)
	}
	return &Chunk{f: f}, nil
}

// Empty reports whether the chunk holds no statement (a blank line).
func (c *Chunk) Empty() bool { return len(c.f.Stmts) == 0 }

// EvalChunk runs c against the persistent REPL globals. If the chunk is a
// single expression, its value is returned and stored in _ (unless None).
func (in *Interp) EvalChunk(ctx context.Context, c *Chunk) (star.Value, error) {
	return in.runChunk(ctx, c.f)
}

// Exec runs src (a snippet, as with agentsh -c) against the persistent
// REPL globals and returns the value of a sole expression, as EvalChunk.
func (in *Interp) Exec(ctx context.Context, filename string, src string) (star.Value, error) {
	f, err := replOptions.Parse(filename, src, 0)
	if err != nil {
		return nil, wrapError(err)
	}
	return in.runChunk(ctx, f)
}

func (in *Interp) runChunk(ctx context.Context, f *syntax.File) (star.Value, error) {
	g := in.replGlobals()
	t, stop := in.newThread(ctx, f.Path, ".")
	defer stop()
	if expr := soleExpr(f); expr != nil {
		v, err := star.EvalExprOptions(f.Options, t, expr, g)
		if err != nil {
			return nil, in.runError(ctx, err)
		}
		if v != star.None {
			g["_"] = v
		}
		return v, nil
	}
	return nil, in.runError(ctx, star.ExecREPLChunk(f, t, g))
}

func soleExpr(f *syntax.File) syntax.Expr {
	if len(f.Stmts) == 1 {
		if s, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			return s.X
		}
	}
	return nil
}

// Define adds globals (for example those of a file run with ExecFile) to
// the REPL globals.
func (in *Interp) Define(globals star.StringDict) {
	g := in.replGlobals()
	for k, v := range globals {
		g[k] = v
	}
}

// GlobalNames returns the REPL's global names, sorted, for completion.
func (in *Interp) GlobalNames() []string {
	g := in.replGlobals()
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Complete returns the completions of the name that ends at pos in line
// (see script.Interp): globals, or the attributes of the value a dotted
// name leads to. Only attributes are read on the way, never a function
// called.
func (in *Interp) Complete(line string, pos int) (int, []string) {
	c := script.ParseCompletion(line, pos, ".")
	g := in.replGlobals()
	if len(c.Path) == 0 {
		names := make([]string, 0, len(g))
		for k := range g {
			names = append(names, k)
		}
		return c.Start, c.Candidates(names)
	}
	v, ok := g[c.Path[0]]
	for _, name := range c.Path[1:] {
		if !ok {
			break
		}
		v, ok = attr(v, name)
	}
	if !ok {
		return c.Start, nil
	}
	a, isAttrs := v.(star.HasAttrs)
	if !isAttrs {
		return c.Start, nil
	}
	return c.Start, c.Candidates(a.AttrNames())
}

// attr is v.name, if v has it.
func attr(v star.Value, name string) (star.Value, bool) {
	a, ok := v.(star.HasAttrs)
	if !ok {
		return nil, false
	}
	x, err := a.Attr(name)
	return x, err == nil && x != nil
}
