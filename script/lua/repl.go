package lua

import (
	"context"
	"errors"
	"fmt"
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
		if !incomplete(err) {
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
	_, exprErr := parse.Parse(strings.NewReader("return "+src), filename)
	if exprErr == nil {
		return &Chunk{name: filename, src: "return " + src, expr: true}, nil
	}
	if _, err := parse.Parse(strings.NewReader(src), filename); err != nil {
		if incomplete(exprErr) {
			// An unfinished expression ("1 +") is no statement at all;
			// it goes on on the next line, as an open block does.
			return nil, syntaxError(exprErr)
		}
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
	if in.closed.Load() {
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

// LoadFile runs the .lua file at path and adds its globals to the REPL
// globals (agentsh run, --load, :load).
func (in *Interp) LoadFile(ctx context.Context, path string) error {
	g, err := in.ExecFile(ctx, path)
	in.Define(g)
	return err
}

// Run runs src as the program filename and adds its globals to the REPL
// globals (a program piped to agentsh).
func (in *Interp) Run(ctx context.Context, filename string, src []byte) error {
	g, err := in.ExecSource(ctx, filename, src)
	in.Define(g)
	return err
}

// Eval runs src against the REPL globals, as Exec.
func (in *Interp) Eval(ctx context.Context, filename string, src []byte) (string, error) {
	return in.Exec(ctx, filename, string(src))
}

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

// Functions returns the functions among the REPL globals (what LoadFile,
// Run and Eval defined), sorted.
func (in *Interp) Functions() []string {
	in.lock()
	defer in.release()
	var names []string
	in.replEnv().ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			if _, isFn := v.(*lua.LFunction); isFn {
				names = append(names, string(s))
			}
		}
	})
	sort.Strings(names)
	return names
}

// CallGlobal calls the global function name with no arguments.
func (in *Interp) CallGlobal(ctx context.Context, name string) error {
	in.lock()
	fn, ok := in.replEnv().RawGetString(name).(*lua.LFunction)
	in.release()
	if !ok {
		return fmt.Errorf("%s is not a global function", name)
	}
	_, err := in.callFunction(ctx, fn, name, nil)
	return err
}

// Complete returns the completions of the name that ends at pos in line
// (see script.Interp): globals, or the fields of the table (or the
// attributes of the host object) a dotted name leads to, such as string.
// or state.; a colon completes like a dot. Fields are read raw: no
// metamethod runs.
func (in *Interp) Complete(line string, pos int) (int, []string) {
	c := script.ParseCompletion(line, pos, ".:")
	in.lock()
	defer in.release()
	if in.closed.Load() {
		return c.Start, nil
	}
	env := in.replEnv()
	if len(c.Path) == 0 {
		return c.Start, c.Candidates(append(stringKeys(env), stringKeys(in.predeclared)...))
	}
	v := env.RawGetString(c.Path[0])
	if v == lua.LNil {
		v = in.predeclared.RawGetString(c.Path[0])
	}
	for _, name := range c.Path[1:] {
		t, ok := v.(*lua.LTable)
		if !ok {
			return c.Start, nil
		}
		v = t.RawGetString(name)
	}
	return c.Start, c.Candidates(memberNames(v))
}

// memberNames are the names v.NAME can read: a table's string keys (and
// those its __index table offers), a host object's attributes.
func memberNames(v lua.LValue) []string {
	switch x := v.(type) {
	case *lua.LTable:
		names := stringKeys(x)
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok {
				names = append(names, stringKeys(idx)...)
			}
		}
		return names
	case *lua.LUserData:
		if o, ok := x.Value.(script.Object); ok {
			return o.AttrNames()
		}
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok {
				return stringKeys(idx)
			}
		}
	}
	return nil
}

// stringKeys are the string keys of t that are names.
func stringKeys(t *lua.LTable) []string {
	var names []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			names = append(names, string(s))
		}
	})
	return names
}
