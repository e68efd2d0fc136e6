package lua

import (
	"fmt"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// Which functions run on a replica.
//
// A replica runs a function on copies of what the function reaches: its
// upvalues, the globals its code names, and the tables, functions and host
// values reachable from those. Copies are only right for what no call
// changes, so a function runs in parallel only when
//
//   - no code in it assigns a global, or an upvalue it shares with the
//     script (a local of the call itself is its own), which the bytecode
//     shows before it runs;
//   - what it reaches can be copied: no coroutine, no Go function made
//     while the script ran, nothing that must run on the main state (the
//     API names that register functions, such as tool and before, and
//     require), at most maxReached values;
//   - its calls do not change the tables it reaches. Its first call runs on
//     the main state and compares those tables before and after; a change
//     there, or on a replica later, keeps it on the main state for good
//     (on a replica the change is lost, and that call fails saying so).
//
// Every other function runs on the main state, as all did before
// replicas: one call at a time, sharing everything.

// maxReached bounds the values a function may reach and still run on
// replicas: each replica copies them, and every call compares its tables.
const maxReached = 4096

type verdictKind uint8

const (
	unproven verdictKind = iota // its first call runs on the main state, checked
	parallel                    // its calls may run on replicas
	mainOnly                    // its calls run on the main state
)

// verdict is whether a function may run on a replica, as of an epoch.
type verdict struct {
	epoch  uint64
	kind   verdictKind
	why    string // for mainOnly
	sticky bool   // for what its calls did: not reconsidered

	tables []*lua.LTable  // the main-state tables it reaches
	snaps  [][]lua.LValue // their pairs when the verdict was made
}

func (v *verdict) parallel() bool { return v.kind != mainOnly }

// verdictOf returns fn's verdict as of now. Call it with the lock held.
func (in *Interp) verdictOf(fn *lua.LFunction) *verdict {
	epoch := in.epoch.Load()
	old := in.verdicts[fn]
	if old != nil && (old.sticky || old.epoch == epoch) {
		return old
	}
	v := &verdict{epoch: epoch}
	if old != nil {
		v.kind = old.kind // proven stays proven while what it reaches can be copied
	}
	w := reachWalk{in: in, seen: map[lua.LValue]bool{}}
	if why := w.value(fn); why != "" {
		v.kind, v.why = mainOnly, why
	} else {
		v.tables = w.tables
		v.snaps = make([][]lua.LValue, len(w.tables))
		for i, t := range w.tables {
			v.snaps[i] = pairsOf(t)
		}
	}
	in.verdicts[fn] = v
	return v
}

// checkVerdict compares the tables fn reaches with the verdict's
// snapshot after a call on the main state, with the lock held. A change
// keeps fn on the main state; a clean first call proves it. When other
// Lua code ran meanwhile (the epoch moved on), the call proves nothing.
func (in *Interp) checkVerdict(fn *lua.LFunction, v *verdict) {
	if v.kind == mainOnly || in.epoch.Load() != v.epoch {
		return
	}
	for i, t := range v.tables {
		if !holdsPairs(t, v.snaps[i]) {
			in.refuse(fn, "its calls change a table it reaches")
			return
		}
	}
	v.kind = parallel
}

// refuse keeps fn on the main state for good, with the lock held, and
// moves the epoch on so that replicas look at fn's verdict again.
func (in *Interp) refuse(fn *lua.LFunction, why string) {
	in.verdicts[fn] = &verdict{kind: mainOnly, why: why, sticky: true}
	in.epoch.Add(1)
}

// reachWalk visits what a function reaches, saying why it cannot run on a
// replica ("" when it can).
type reachWalk struct {
	in     *Interp
	seen   map[lua.LValue]bool
	tables []*lua.LTable
	n      int
}

func (w *reachWalk) value(v lua.LValue) string {
	switch v.(type) {
	case *lua.LNilType, lua.LBool, lua.LNumber, lua.LString:
		return ""
	}
	if w.seen[v] {
		return ""
	}
	w.seen[v] = true
	if w.n++; w.n > maxReached {
		return fmt.Sprintf("it reaches more than %d values", maxReached)
	}
	switch x := v.(type) {
	case *lua.LFunction:
		if name, ok := w.in.mainOnly[v]; ok {
			return fmt.Sprintf("it reaches %s, which runs only on the main state", name)
		}
		if w.in.predeclaredValue[v] {
			return ""
		}
		if x.IsG {
			return "it reaches a Go function made while the script ran"
		}
		info := w.in.protoInfo(x.Proto)
		if info.why != "" {
			return info.why
		}
		for _, u := range x.Upvalues {
			if why := w.value(u.Value()); why != "" {
				return why
			}
		}
		for _, name := range info.globals {
			g, ok := globalOf(x.Env, name)
			if !ok {
				return fmt.Sprintf("its global %s comes from an __index function", name)
			}
			if why := w.value(g); why != "" {
				return why
			}
		}
		return ""
	case *lua.LTable:
		w.tables = append(w.tables, x)
		var why string
		eachPair(x, func(k, e lua.LValue) bool {
			if why = w.value(k); why == "" {
				why = w.value(e)
			}
			return why == ""
		})
		if why == "" && !w.in.isArrayMeta(x.Metatable) {
			why = w.value(x.Metatable)
		}
		return why
	case *lua.LUserData:
		switch x.Value.(type) {
		case nullValue, *luaObject, opaqueValue:
			return ""
		}
		if w.in.predeclaredValue[v] {
			return ""
		}
	}
	return fmt.Sprintf("it reaches %s, which cannot be copied", typeName(v))
}

// globalOf reads the global name as env sees it: its own, or through
// __index tables. ok is false when an __index function would answer.
func globalOf(env *lua.LTable, name string) (lua.LValue, bool) {
	for t := env; t != nil; {
		if v := t.RawGetString(name); v != lua.LNil {
			return v, true
		}
		mt, _ := t.Metatable.(*lua.LTable)
		if mt == nil {
			break
		}
		switch idx := mt.RawGetString("__index").(type) {
		case *lua.LTable:
			t = idx
		case *lua.LNilType:
			return lua.LNil, true
		default:
			return nil, false
		}
	}
	return lua.LNil, true
}

// protoInfo is what a function's code shows about it: the globals it and
// the functions defined inside it read, and why it cannot run on a
// replica ("" when it can).
type protoInfo struct {
	globals []string
	why     string
}

func (in *Interp) protoInfo(p *lua.FunctionProto) *protoInfo {
	if v, ok := in.protos.Load(p); ok {
		return v.(*protoInfo)
	}
	info := &protoInfo{}
	seen := map[string]bool{}
	shared := make([]bool, p.NumUpvalues)
	for i := range shared {
		shared[i] = true // the upvalues of a function the host calls are the script's
	}
	scanProto(p, shared, info, seen)
	in.protos.Store(p, info)
	return info
}

// scanProto scans p's code; shared[i] says whether p's upvalue i is a
// variable of the script rather than a local of the running call.
func scanProto(p *lua.FunctionProto, shared []bool, info *protoInfo, seen map[string]bool) {
	for pc := 0; pc < len(p.Code) && info.why == ""; pc++ {
		inst := p.Code[pc]
		switch int(inst >> 26) {
		case lua.OP_GETGLOBAL:
			if name := constName(p, int(inst&0x3ffff)); !seen[name] {
				seen[name] = true
				info.globals = append(info.globals, name)
			}
		case lua.OP_SETGLOBAL:
			info.why = fmt.Sprintf("it assigns the global %s (line %d)", constName(p, int(inst&0x3ffff)), line(p, pc))
		case lua.OP_SETUPVAL:
			if b := int(inst & 0x1ff); b < len(shared) && shared[b] {
				info.why = fmt.Sprintf("it assigns the upvalue %s (line %d)", upvalueName(p, b), line(p, pc))
			}
		case lua.OP_CLOSURE:
			np := p.FunctionPrototypes[int(inst&0x3ffff)]
			nshared := make([]bool, np.NumUpvalues)
			for i := range nshared {
				if pc+1+i >= len(p.Code) {
					break
				}
				capture := p.Code[pc+1+i]
				// MOVE captures a local of this call; GETUPVAL passes
				// on one of p's upvalues.
				if int(capture>>26) == lua.OP_GETUPVAL {
					if b := int(capture & 0x1ff); b < len(shared) {
						nshared[i] = shared[b]
					}
				}
			}
			scanProto(np, nshared, info, seen)
			pc += int(np.NumUpvalues)
		}
	}
}

func constName(p *lua.FunctionProto, i int) string {
	if i < len(p.Constants) {
		return p.Constants[i].String()
	}
	return "?"
}

func upvalueName(p *lua.FunctionProto, i int) string {
	if i < len(p.DbgUpvalues) {
		return p.DbgUpvalues[i]
	}
	return "?"
}

func line(p *lua.FunctionProto, pc int) int {
	if pc < len(p.DbgSourcePositions) {
		return p.DbgSourcePositions[pc]
	}
	return 0
}

// eachPair calls fn with t's pairs in the order of pairs(), until fn
// returns false.
func eachPair(t *lua.LTable, fn func(k, v lua.LValue) bool) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !fn(k, v) {
			return
		}
	}
}

// pairsOf returns t's pairs as k1, v1, k2, v2, ..., and its metatable.
func pairsOf(t *lua.LTable) []lua.LValue {
	var out []lua.LValue
	eachPair(t, func(k, v lua.LValue) bool {
		out = append(out, k, v)
		return true
	})
	return append(out, t.Metatable)
}

// holdsPairs reports whether t's pairs and metatable are snap (made by
// pairsOf), in the same order, without making a copy of them: replicas
// check this after every call.
func holdsPairs(t *lua.LTable, snap []lua.LValue) bool {
	i := 0
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if i+1 >= len(snap) || snap[i] != k || snap[i+1] != v {
			return false
		}
		i += 2
	}
	return i == len(snap)-1 && snap[i] == t.Metatable
}

func samePairs(a, b []lua.LValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// notePredeclared records the predeclared tables as installed, the
// values in them, and the functions that run only on the main state: the
// API names with a function parameter (they keep what they are given),
// and require, which runs files.
func (in *Interp) notePredeclared() {
	in.pristine = map[*lua.LTable][]lua.LValue{}
	in.predeclaredValue = map[lua.LValue]bool{}
	var note func(t *lua.LTable)
	note = func(t *lua.LTable) {
		if _, ok := in.pristine[t]; ok {
			return
		}
		in.pristine[t] = pairsOf(t)
		eachPair(t, func(_, v lua.LValue) bool {
			switch x := v.(type) {
			case *lua.LTable:
				note(x)
			case *lua.LFunction, *lua.LUserData:
				in.predeclaredValue[v] = true
			}
			return true
		})
		if mt, ok := t.Metatable.(*lua.LTable); ok && t.Metatable != lua.LValue(in.arrayMeta) {
			note(mt)
		}
	}
	note(in.predeclared)
	if mt, ok := in.main.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		note(mt)
	}
	in.mainOnly = map[lua.LValue]string{in.predeclared.RawGetString("require"): "require"}
	api := in.host.API()
	if in.opts.Testing {
		api = append(api, in.host.TestingAPI()...)
	}
	for _, b := range api {
		for _, p := range b.Params {
			if p.Kind == script.Function || p.Kind == script.Any {
				in.mainOnly[in.predeclared.RawGetString(b.Name)] = b.Name
				break
			}
		}
	}
}
