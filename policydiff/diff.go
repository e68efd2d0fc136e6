package policydiff

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// Decider decides a call without running it. It must be safe for
// concurrent use: Diff calls it from several goroutines.
type Decider interface {
	Decide(ctx context.Context, call core.Call) *executor.Ruling
}

var _ Decider = (*executor.Executor)(nil)

// Hook is a registered before hook: its name and where it was defined.
type Hook struct {
	Name   string
	Source string
}

// Policy is one side of a diff: a policy set's Decider, the name the
// report gives it (the path given, usually) and its registered before
// hooks, for coverage (executor.BeforeHooks).
type Policy struct {
	Name    string
	Decider Decider
	Hooks   []Hook
}

// Options tune Diff.
type Options struct {
	// WorkDir is the working directory of calls recorded without one
	// (recordings, old audit records); "" leaves it to the Deciders.
	WorkDir string
	// Workers bounds the calls decided at once; 0 is one per CPU.
	Workers int
	// Coverage fills in Report.Coverage.
	Coverage bool
}

// Ruling is the part of a decision that a diff compares and reports.
type Ruling struct {
	Verdict core.Verdict `json:"verdict"`
	// Hook is the hook or approval step that decided; Source its file:line.
	Hook   string `json:"hook,omitempty"`
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Failed says the deciding hook failed (an error, a panic, a rewrite
	// that is not an object): a deny.
	Failed bool `json:"failed,omitempty"`
	// ErrorKind is the error a denied call would fail with when that is
	// no hook's refusal: unknown_tool or invalid_arguments.
	ErrorKind string `json:"error_kind,omitempty"`
}

// rulingOf names the decider as traces and audit logs name it
// (core.Settled).
func rulingOf(r *executor.Ruling) Ruling {
	out := Ruling{Verdict: r.Outcome, Hook: r.Hook, Source: r.Source, Reason: r.Reason}
	if d := core.Settled(r.Decisions, r.Err); d.Verdict != core.VerdictNone {
		out.Hook, out.Source, out.Reason, out.Failed = d.Hook, d.Source, d.Reason, d.Failed
	}
	if k := core.KindOf(r.Err); k == core.KindUnknownTool || k == core.KindInvalidArguments {
		out.ErrorKind = string(k)
	}
	return out
}

// same reports whether a and b are one decision: the same verdict by the
// same hook for the same reason. A hook that failed under both fails
// with an error naming its file and lines, which differ between two
// copies of one policy: its text is not compared.
func same(a, b Ruling) bool {
	if a.Verdict != b.Verdict || a.Hook != b.Hook || a.Failed != b.Failed || a.ErrorKind != b.ErrorKind {
		return false
	}
	return a.Failed || a.Reason == b.Reason
}

// Diff decides every call of c under old and new and reports the calls
// whose decision changed. Calls that are the same call again (tool,
// arguments, origin and workdir alike; only the id differs) are decided
// once: each decision starts from the same copy of the session, so it
// would come out the same. Diff fails only when ctx is done.
func Diff(ctx context.Context, old, new Policy, c *Corpus, o Options) (*Report, error) {
	n := len(c.Calls)
	olds, news := make([]Ruling, n), make([]Ruling, n)
	distinct, firstOf := distinctCalls(c.Calls, o.WorkDir)
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(distinct), 1))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= len(distinct) {
					return
				}
				i := distinct[k]
				call := decidable(&c.Calls[i], o.WorkDir)
				olds[i] = rulingOf(old.Decider.Decide(ctx, call))
				news[i] = rulingOf(new.Decider.Decide(ctx, call))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, f := range firstOf {
		olds[i], news[i] = olds[f], news[f]
	}
	r := newReport(old, new, c, olds, news, o)
	if o.Coverage {
		r.Coverage = coverage(old, new, olds, news)
	}
	return r, nil
}

// distinctCalls returns the indexes of the first of each distinct call,
// and for every other call the index of its first.
func distinctCalls(calls []Call, workdir string) (distinct []int, firstOf map[int]int) {
	firstOf = map[int]int{}
	seen := make(map[string]int, len(calls))
	var key []byte
	for i := range calls {
		c := &calls[i]
		wd := c.WorkDir
		if wd == "" {
			wd = workdir
		}
		key = append(key[:0], c.Tool...)
		key = append(append(key, 0, byte(c.Origin), 0), wd...)
		key = append(append(key, 0), c.Args...)
		if f, ok := seen[string(key)]; ok {
			firstOf[i] = f
			continue
		}
		seen[string(key)] = i
		distinct = append(distinct, i)
	}
	return distinct, firstOf
}

// decidable is the call the pipeline decides for rec.
func decidable(rec *Call, workdir string) core.Call {
	wd := rec.WorkDir
	if wd == "" {
		wd = workdir
	}
	return core.Call{ID: rec.ID, Name: rec.Tool, Args: rec.Args, Origin: rec.Origin, WorkDir: wd}
}
