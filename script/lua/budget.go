package lua

import (
	"context"
	"sync/atomic"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// DefaultMaxSteps is the step budget of a top-level run and of each call
// into a Lua function when Options.MaxSteps is 0; the same as Starlark's.
const DefaultMaxSteps = 100_000_000

// budget is the context a Lua thread runs under: the call's, counting
// steps. gopher-lua has no instruction hook, but with a context set its VM
// asks the context for Done before every instruction; budget counts those
// questions, and once there were more than max it answers with a closed
// channel and Err reports the exhausted budget, so the VM raises that
// error at the next instruction. Go code working for the thread (the
// pattern matcher of string.find and gsub) charges its steps with Charge.
// Host calls get the call's context instead (hostContext), so goroutines
// waiting on it do not spend the thread's steps.
type budget struct {
	context.Context
	done  <-chan struct{} // the call's Done, which never changes
	max   uint64
	steps atomic.Uint64
	// quiet marks a call in the main state whose function changes
	// nothing a replica copies, so taking the lock back after the host
	// does not move the epoch on.
	quiet bool
}

// closed is the Done channel of an exhausted budget.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// withBudget returns ctx with a step budget of max.
func withBudget(ctx context.Context, max uint64) context.Context {
	if b, ok := ctx.(*budget); ok {
		ctx = b.Context
	}
	return &budget{Context: ctx, done: ctx.Done(), max: max}
}

// Done counts one step. The VM asks before every instruction, from the
// one goroutine that runs the thread; a load and a store cost a fraction
// of a locked add there. A goroutine that waits on Done (a child
// context's) asks once, and a step lost to that race does not matter.
func (b *budget) Done() <-chan struct{} {
	n := b.steps.Load() + 1
	b.steps.Store(n)
	if n > b.max {
		return closed
	}
	return b.done
}

// Charge counts n steps of Go code working for the thread.
func (b *budget) Charge(n int) { b.steps.Add(uint64(n)) }

func (b *budget) Err() error {
	if b.steps.Load() > b.max {
		return &script.StepBudgetError{Max: b.max}
	}
	return b.Context.Err()
}

// maxSteps is the interpreter's step budget.
func (in *Interp) maxSteps() uint64 {
	if in.opts.MaxSteps == 0 {
		return DefaultMaxSteps
	}
	return in.opts.MaxSteps
}

// installBudget makes coroutines created by scripts spend the budget of
// the call that resumes them: gopher-lua gives a new coroutine a child
// context of its creator's, which would not count its steps.
func (in *Interp) installBudget(L *lua.LState) {
	co, ok := L.GetGlobal(lua.CoroutineLibName).(*lua.LTable)
	if !ok {
		return
	}
	resume := co.RawGetString("resume")
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		if th, ok := L.Get(1).(*lua.LState); ok && L.Context() != nil {
			th.SetContext(L.Context())
		}
		L.Insert(resume, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}))
}
