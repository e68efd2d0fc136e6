package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// variant is one of the commands a case compares: base, new, a peer.
type variant struct {
	name string
	p    pipeline
	// inProcess, when set, is what the variant times instead of p: work
	// this program does itself (a call into a package), so that the
	// figure is that work's cost and not a program's start-up. It returns
	// the run's sample; p is then only its label.
	inProcess func(ctx context.Context) (sample, error)
	// verify checks the output of the warm-up run (a file) and says what
	// it checked; nil: the output is not checked.
	verify func(outPath string) (string, error)
}

// slot is one run of the schedule: which variant, which of its runs.
type slot struct{ variant, run int }

// schedule is the order the runs of a case happen in: round-robin, one
// run of each variant in turn (base, new, peer, base, new, peer, ...), so
// that a change in the machine's load while the case runs falls on every
// variant alike instead of on whichever ran last.
func schedule(variants, runs int) []slot {
	order := make([]slot, 0, variants*runs)
	for r := range runs {
		for v := range variants {
			order = append(order, slot{v, r})
		}
	}
	return order
}

// measured is a variant's runs.
type measured struct {
	samples []sample
	note    string // what the warm-up's output check found
	err     error  // the variant failed: a run, or the output check
}

// runner runs a pipeline once: pipeline.run, or through the launcher.
type runner func(ctx context.Context, p pipeline, out io.Writer) (sample, error)

func direct(ctx context.Context, p pipeline, out io.Writer) (sample, error) { return p.run(ctx, out) }

// through returns the runner that starts pipelines with the launcher self.
func through(self string) runner {
	return func(ctx context.Context, p pipeline, out io.Writer) (sample, error) { return p.launch(ctx, self, out) }
}

// measure runs every variant once to warm up and check its output, then
// runs runs times each, interleaved. A variant that fails is dropped from
// the timed runs and keeps its error; the others go on. tmp holds the
// warm-up outputs while they are checked.
func measure(ctx context.Context, run runner, vs []variant, runs int, tmp string) ([]measured, error) {
	ms := make([]measured, len(vs))
	for i, v := range vs {
		ms[i].note, ms[i].err = warmUp(ctx, run, v, tmp)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for _, s := range schedule(len(vs), runs) {
		m := &ms[s.variant]
		if m.err != nil {
			continue
		}
		got, err := vs[s.variant].once(ctx, run, io.Discard)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			m.err = fmt.Errorf("run %d: %w", s.run+1, err)
			continue
		}
		m.samples = append(m.samples, got)
	}
	return ms, nil
}

// once runs v one time: in this process, or its pipeline through run
// with the last stage's output written to out.
func (v variant) once(ctx context.Context, run runner, out io.Writer) (sample, error) {
	if v.inProcess != nil {
		return v.inProcess(ctx)
	}
	return run(ctx, v.p, out)
}

// warmUp runs v once, its output kept in a file under tmp for v.verify.
// It also brings v's binary and files into the page cache.
func warmUp(ctx context.Context, run runner, v variant, tmp string) (string, error) {
	f, err := os.CreateTemp(tmp, "out-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = v.once(ctx, run, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("warm-up: %w", err)
	}
	if v.verify == nil {
		return "", nil
	}
	return v.verify(filepath.Clean(f.Name()))
}
