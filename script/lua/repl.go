package lua

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// replEnv returns the persistent globals of Exec and EvalChunk. Call it
// with the lock held.
func (in *Interp) replEnv() *lua.LTable {
	if in.repl == nil {
		in.repl = in.newEnv(in.main)
	}
	return in.repl
}

// Chunk is one REPL input: an expression (run as "return <input>") or a
// block of statements that may have spanned several lines.
type Chunk struct {
	name string
	src  string
	expr bool
}

// Empty reports whether the chunk holds nothing to run.
func (c *Chunk) Empty() bool { return strings.TrimSpace(c.src) == "" }

// ReadChunk reads one chunk with readline, which is called again while the
// input is an incomplete block (an open function, do, if, or a string).
// readline returns io.EOF at the end of input; ReadChunk returns it when
// the input ends inside a block, or when no line was read.
func ReadChunk(filename string, readline func() ([]byte, error)) (*Chunk, error) {
	var src strings.Builder
	for {
		line, err := readline()
		if err != nil {
			if errors.Is(err, io.EOF) && src.Len() > 0 && len(line) == 0 {
				return nil, io.EOF
			}
			if len(line) == 0 {
				return nil, err
			}
		}
		src.Write(line)
		c, err := parseChunk(filename, src.String())
		if err == nil {
			return c, nil
		}
		var le *Error
		if !errors.As(err, &le) || !le.Incomplete {
			return nil, err
		}
	}
}

// parseChunk decides how src runs: as an expression when "return src"
// compiles, else as statements.
func parseChunk(filename, src string) (*Chunk, error) {
	if strings.TrimSpace(src) == "" {
		return &Chunk{name: filename, src: src}, nil
	}
	if _, err := parse.Parse(strings.NewReader("return "+src), filename); err == nil {
		return &Chunk{name: filename, src: "return " + src, expr: true}, nil
	}
	if _, err := parse.Parse(strings.NewReader(src), filename); err != nil {
		return nil, syntaxError(err)
	}
	return &Chunk{name: filename, src: src}, nil
}

// EvalChunk runs c against the persistent REPL globals and returns what an
// expression evaluated to (or what the chunk returned), rendered; "" for
// statements and nil. The first value is kept in _.
func (in *Interp) EvalChunk(ctx context.Context, c *Chunk) (string, error) {
	if c.Empty() {
		return "", nil
	}
	if err := in.acquire(ctx); err != nil {
		return "", err
	}
	defer in.release()
	if in.closed {
		return "", errClosed
	}
	L := in.thread(ctx)
	defer in.putThread(L)
	env := in.replEnv()
	vals, err := in.runChunk(ctx, L, c.name, []byte(c.src), env, lua.MultRet)
	if err != nil {
		return "", err
	}
	if len(vals) == 0 || len(vals) == 1 && vals[0] == lua.LNil {
		return "", nil
	}
	env.RawSetString("_", vals[0])
	return in.render(L, vals), nil
}

// Exec runs src (a snippet, as with agentsh -c) against the persistent
// REPL globals and returns the rendered value of a sole expression, as
// EvalChunk.
func (in *Interp) Exec(ctx context.Context, filename, src string) (string, error) {
	c, err := parseChunk(filename, src)
	if err != nil {
		return "", err
	}
	return in.EvalChunk(ctx, c)
}

// render shows values as the REPL prints them, tab-separated: strings and
// numbers as Lua's tostring, tables as JSON when they have a JSON form,
// host objects by their tostring.
func (in *Interp) render(L *lua.LState, vals []lua.LValue) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if t, ok := v.(*lua.LTable); ok {
			if g, err := in.toGo(t, ""); err == nil {
				parts[i] = script.Quote(g)
				continue
			}
		}
		parts[i] = L.ToStringMeta(v).String()
	}
	return strings.Join(parts, "\t")
}

// Define adds the globals of an executed file to the REPL globals.
func (in *Interp) Define(g *Globals) {
	if g == nil {
		return
	}
	in.lock()
	defer in.release()
	env := in.replEnv()
	g.env.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && s != "_G" {
			env.RawSet(k, v)
		}
	})
}

// GlobalNames returns the REPL's global names and the predeclared ones,
// sorted, for completion.
func (in *Interp) GlobalNames() []string {
	in.lock()
	defer in.release()
	seen := map[string]bool{}
	var names []string
	for _, t := range []*lua.LTable{in.replEnv(), in.predeclared} {
		for _, n := range tableKeys(t) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}
