package lua

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// A replica is a state of its own (its own globals, the same sandbox and
// API) where functions of the main state run in parallel with the main
// state and with each other: a function the verdict allows (verdict.go)
// runs on copies of what it reaches, made under the interpreter lock and
// brought up to date whenever Lua code that may change them ran on the
// main state since (the epoch moved on): before each call, and when the
// call comes back from the host, where other code may have run. A
// replica runs one call at a time and holds no lock, so a call waiting in
// the host keeps its replica and nothing waits for one: with none free, a
// call runs on the main state, as every call did before replicas, and
// nesting never deadlocks.
type replica struct {
	in    *Interp
	st    state
	epoch uint64 // the main state's epoch the copies reflect

	roots  map[*lua.LFunction]*lua.LFunction // functions ready to run here as of epoch
	funcs  map[*lua.LFunction]*lua.LFunction // main-state function -> copy
	back   map[*lua.LFunction]*lua.LFunction // copy -> main-state function
	cells  map[*lua.Upvalue]*lua.Upvalue
	tables map[*lua.LTable]*tableCopy
	envs   map[*lua.LTable]*envCopy
	uds    map[*lua.LUserData]*lua.LUserData
	fixed  map[lua.LValue]lua.LValue // predeclared values -> this state's own

	spoiled bool // a call broke the state or changed a copy: close it
}

// tableCopy is a main-state table and its copy here.
type tableCopy struct {
	src, dst *lua.LTable
	srcSnap  []lua.LValue // src's pairs when dst was last written
	snap     []lua.LValue // dst's pairs as written, for the check after a call
}

// envCopy is a main-state global environment and the names of it that
// copied functions read, as a table of their own.
type envCopy struct {
	src, dst *lua.LTable
	names    []string
	has      map[string]bool
}

// replicaPool keeps an interpreter's replicas. There are at most
// GOMAXPROCS of them: a call finding none free runs on the main state,
// which adds one more lane, so a batch of calls can keep every core busy.
type replicaPool struct {
	in   *Interp
	free chan *replica
	mu   sync.Mutex
	made int
	max  int
}

func (p *replicaPool) init(in *Interp) {
	p.in = in
	p.max = runtime.GOMAXPROCS(0)
	p.free = make(chan *replica, p.max)
}

// get returns a free replica, a new one, or nil when all are busy.
func (p *replicaPool) get() *replica {
	select {
	case r := <-p.free:
		return r
	default:
	}
	p.mu.Lock()
	if p.made >= p.max || p.in.closed.Load() {
		p.mu.Unlock()
		return nil
	}
	p.made++
	p.mu.Unlock()
	return newReplica(p.in)
}

func (p *replicaPool) put(r *replica) {
	if r.spoiled || p.in.closed.Load() {
		p.drop(r)
		return
	}
	p.free <- r // never blocks: at most max replicas exist
}

func (p *replicaPool) drop(r *replica) {
	p.mu.Lock()
	p.made--
	states := *p.in.states.Load()
	kept := make([]*state, 0, len(states))
	for _, st := range states {
		if st != &r.st {
			kept = append(kept, st)
		}
	}
	p.in.states.Store(&kept)
	p.mu.Unlock()
	r.st.main.Close()
}

// close closes the free replicas; busy ones close when they come back.
func (p *replicaPool) close() {
	for {
		select {
		case r := <-p.free:
			p.drop(r)
		default:
			return
		}
	}
}

func newReplica(in *Interp) *replica {
	r := &replica{in: in, epoch: ^uint64(0)}
	r.st.replica = r
	in.initState(&r.st)
	r.reset()
	r.fixed = map[lua.LValue]lua.LValue{}
	r.pairFixed(in.predeclared, r.st.predeclared, map[*lua.LTable]bool{})
	if mt, ok := in.main.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		if own, ok := r.st.main.GetMetatable(lua.LString("")).(*lua.LTable); ok {
			r.pairFixed(mt, own, map[*lua.LTable]bool{})
		}
	}
	in.pool.mu.Lock()
	states := append(append([]*state(nil), *in.states.Load()...), &r.st)
	in.states.Store(&states)
	in.pool.mu.Unlock()
	return r
}

// pairFixed maps the predeclared values of the main state, as installed,
// to this state's, which were installed the same way.
func (r *replica) pairFixed(main, own *lua.LTable, seen map[*lua.LTable]bool) {
	if seen[main] {
		return
	}
	seen[main] = true
	r.fixed[main] = own
	snap := r.in.pristine[main]
	for i := 0; i+1 < len(snap); i += 2 {
		k, v := snap[i], snap[i+1]
		mine := own.RawGet(k)
		switch x := v.(type) {
		case *lua.LTable:
			if t, ok := mine.(*lua.LTable); ok {
				r.pairFixed(x, t, seen)
			}
		case *lua.LFunction, *lua.LUserData:
			if mine != lua.LNil {
				r.fixed[v] = mine
			}
		}
	}
}

// reset forgets every copy.
func (r *replica) reset() {
	r.roots = map[*lua.LFunction]*lua.LFunction{}
	r.funcs = map[*lua.LFunction]*lua.LFunction{}
	r.back = map[*lua.LFunction]*lua.LFunction{}
	r.cells = map[*lua.Upvalue]*lua.Upvalue{}
	r.tables = map[*lua.LTable]*tableCopy{}
	r.envs = map[*lua.LTable]*envCopy{}
	r.uds = map[*lua.LUserData]*lua.LUserData{}
}

// call runs fn here if its verdict allows; ran is false when it must run
// on the main state instead.
func (r *replica) call(ctx context.Context, fn *lua.LFunction, name string, args []any) (out any, err error, ran bool) {
	if r.in.closed.Load() {
		return nil, errClosed, true
	}
	copied, ok, err := r.prepare(ctx, fn)
	if err != nil {
		return nil, err, true
	}
	if !ok {
		return nil, nil, false
	}
	L := r.st.main
	L.SetContext(withBudget(script.WithClock(ctx, r.in.opts.Now), r.in.maxSteps()))
	out, err = r.in.callOn(ctx, L, copied, name, args)
	L.RemoveContext()
	L.SetTop(0)
	if r.st.broken[L] {
		r.spoiled = true
	}
	if changed := r.changed(); changed {
		r.spoiled = true
		if lerr := r.in.acquireQuiet(context.Background()); lerr == nil {
			r.in.refuse(fn, "its calls change a table it reaches")
			r.in.release()
		}
		return nil, fmt.Errorf("%s changed a table it reaches through an upvalue or a global; "+
			"calls that run in parallel each change a copy of it, so the change was lost: "+
			"keep data that calls share in the state module (state.set, state.get, state.incr); "+
			"from now on %s runs on the main state, one call at a time", name, name), true
	}
	return out, err, true
}

// prepare returns fn's copy here, making or updating copies under the
// lock when the main state moved on; ok is false when fn's verdict keeps
// it on the main state.
func (r *replica) prepare(ctx context.Context, fn *lua.LFunction) (*lua.LFunction, bool, error) {
	in := r.in
	if r.epoch == in.epoch.Load() {
		if c, ok := r.roots[fn]; ok {
			return c, true, nil
		}
	}
	if err := in.acquireQuiet(ctx); err != nil {
		return nil, false, err
	}
	defer in.release()
	if in.closed.Load() {
		return nil, false, errClosed
	}
	if epoch := in.epoch.Load(); r.epoch != epoch {
		if err := r.update(); err != nil {
			r.reset()
		}
		r.roots = map[*lua.LFunction]*lua.LFunction{}
		r.epoch = epoch
	}
	v := in.verdictOf(fn)
	if v.kind != parallel {
		return nil, false, nil
	}
	// Methods of strings (s:trim()) come from the string module without
	// naming it: what the script added to it must be here too.
	if str, ok := in.predeclared.RawGetString("string").(*lua.LTable); ok {
		if _, err := r.copyTable(str); err != nil {
			r.reset()
			return nil, false, nil
		}
	}
	c, err := r.copyFunc(fn)
	copied, isLua := c.(*lua.LFunction)
	if err != nil || !isLua {
		r.reset()
		return nil, false, nil
	}
	r.roots[fn] = copied
	return copied, true, nil
}

// catchUp brings the copies up to date after a call came back from the
// host, if Lua code that may have changed them ran on the main state.
func (r *replica) catchUp() error {
	in := r.in
	if r.epoch == in.epoch.Load() {
		return nil
	}
	if err := in.acquireQuiet(context.Background()); err != nil {
		return err
	}
	defer in.release()
	r.epoch = in.epoch.Load()
	r.roots = map[*lua.LFunction]*lua.LFunction{}
	if err := r.update(); err != nil {
		r.spoiled = true
		return fmt.Errorf("while this call ran in parallel, the script changed what it reaches: %v", err)
	}
	return nil
}

// update writes what the main state holds now into the copies, in place,
// so that code running on them sees it. Call it with the lock held.
func (r *replica) update() error {
	for src, dst := range r.cells {
		v, err := r.copyValue(src.Value())
		if err != nil {
			return err
		}
		dst.SetValue(v)
	}
	for _, e := range r.envs {
		for _, name := range e.names {
			if err := r.copyGlobal(e, name); err != nil {
				return err
			}
		}
	}
	for _, tc := range r.tables {
		if err := r.fill(tc); err != nil {
			return err
		}
	}
	return nil
}

// changed reports whether the last call changed a copied table.
func (r *replica) changed() bool {
	for _, tc := range r.tables {
		if !holdsPairs(tc.dst, tc.snap) {
			return true
		}
	}
	return false
}

// copyOf is a function of the main state as a value here, for a host
// value holding a registered function.
func (r *replica) copyOf(fn *lua.LFunction) (lua.LValue, error) {
	if err := r.in.acquireQuiet(context.Background()); err != nil {
		return nil, err
	}
	defer r.in.release()
	if v := r.in.verdictOf(fn); v.kind == mainOnly {
		return nil, fmt.Errorf("a function that cannot run in parallel (%s) cannot be passed to a call that does", v.why)
	}
	return r.copyFunc(fn)
}

// original is the main-state function a copy was made from, for the
// host; ok is false for a function made during the call, which belongs to
// this replica.
func (r *replica) original(fn *lua.LFunction) (orig *lua.LFunction, ok bool) {
	orig, ok = r.back[fn]
	return orig, ok
}

// copyValue returns v as a value of this state. Call it with the lock held.
func (r *replica) copyValue(v lua.LValue) (lua.LValue, error) {
	switch x := v.(type) {
	case *lua.LNilType, lua.LBool, lua.LNumber, lua.LString:
		return v, nil
	case *lua.LFunction:
		return r.copyFunc(x)
	case *lua.LTable:
		return r.copyTable(x)
	case *lua.LUserData:
		if own, ok := r.fixed[v]; ok {
			return own, nil
		}
		if x == r.in.null {
			return x, nil
		}
		if c, ok := r.uds[x]; ok {
			return c, nil
		}
		c := r.st.main.NewUserData()
		switch u := x.Value.(type) {
		case *luaObject:
			c.Value = &luaObject{obj: u.obj}
		case opaqueValue:
			c.Value = u
		default:
			return nil, fmt.Errorf("it reaches %s, which cannot be copied", typeName(v))
		}
		c.Metatable = x.Metatable // sealed and shared
		r.uds[x] = c
		return c, nil
	}
	return nil, fmt.Errorf("it reaches %s, which cannot be copied", typeName(v))
}

func (r *replica) copyFunc(fn *lua.LFunction) (lua.LValue, error) {
	if c, ok := r.funcs[fn]; ok {
		return c, nil
	}
	if own, ok := r.fixed[fn]; ok {
		return own, nil
	}
	if name, ok := r.in.mainOnly[fn]; ok {
		return nil, fmt.Errorf("it reaches %s, which runs only on the main state", name)
	}
	if fn.IsG {
		return nil, fmt.Errorf("it reaches a Go function made while the script ran")
	}
	info := r.in.protoInfo(fn.Proto)
	if info.why != "" {
		return nil, fmt.Errorf("%s", info.why)
	}
	c := r.st.main.NewFunctionFromProto(fn.Proto)
	r.funcs[fn], r.back[c] = c, fn
	for i, u := range fn.Upvalues {
		cell, ok := r.cells[u]
		if !ok {
			cell = &lua.Upvalue{}
			r.cells[u] = cell
			v, err := r.copyValue(u.Value())
			if err != nil {
				return nil, err
			}
			cell.SetValue(v)
		}
		c.Upvalues[i] = cell
	}
	e := r.envs[fn.Env]
	if e == nil {
		e = &envCopy{src: fn.Env, dst: r.st.main.NewTable(), has: map[string]bool{}}
		r.envs[fn.Env] = e
	}
	c.Env = e.dst
	for _, name := range info.globals {
		if !e.has[name] {
			e.has[name] = true
			e.names = append(e.names, name)
			if err := r.copyGlobal(e, name); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func (r *replica) copyGlobal(e *envCopy, name string) error {
	g, ok := globalOf(e.src, name)
	if !ok {
		return fmt.Errorf("its global %s comes from an __index function", name)
	}
	v, err := r.copyValue(g)
	if err != nil {
		return err
	}
	e.dst.RawSetString(name, v)
	return nil
}

func (r *replica) copyTable(t *lua.LTable) (lua.LValue, error) {
	if tc, ok := r.tables[t]; ok {
		return tc.dst, nil
	}
	tc := &tableCopy{src: t}
	if own, ok := r.fixed[t]; ok {
		// This state's own table, installed as t was: it needs writing
		// only where the script changed t since.
		tc.dst = own.(*lua.LTable)
		tc.srcSnap = r.in.pristine[t]
		tc.snap = pairsOf(tc.dst)
	} else {
		tc.dst = r.st.main.NewTable()
	}
	r.tables[t] = tc
	if err := r.fill(tc); err != nil {
		return nil, err
	}
	return tc.dst, nil
}

// fill writes src's pairs into dst, unless src is as it was last time.
func (r *replica) fill(tc *tableCopy) error {
	now := pairsOf(tc.src)
	if tc.srcSnap != nil && samePairs(now, tc.srcSnap) {
		return nil
	}
	tc.srcSnap = now
	var old []lua.LValue
	eachPair(tc.dst, func(k, _ lua.LValue) bool {
		old = append(old, k)
		return true
	})
	for _, k := range old {
		tc.dst.RawSet(k, lua.LNil)
	}
	for i := 0; i+1 < len(now); i += 2 {
		k, err := r.copyValue(now[i])
		if err != nil {
			return err
		}
		v, err := r.copyValue(now[i+1])
		if err != nil {
			return err
		}
		tc.dst.RawSet(k, v)
	}
	switch mt := tc.src.Metatable.(type) {
	case *lua.LTable:
		if r.in.isArrayMeta(mt) {
			tc.dst.Metatable = r.st.arrayMeta
		} else {
			c, err := r.copyTable(mt)
			if err != nil {
				return err
			}
			tc.dst.Metatable = c
		}
	default:
		tc.dst.Metatable = lua.LNil
	}
	tc.snap = pairsOf(tc.dst)
	return nil
}
