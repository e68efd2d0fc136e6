package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// This file is the ripgrep backend's pipeline. The walk shared with the
// native backend decides which files a search sees, in byte-wise path
// order, with this package's ignore rules; its files go to rg in runs
// (batches), each to an rg of its own that searches them one after
// another (-j1) in the order given and prints its reports in that order.
// A few batches run at once, one rg each, and a batch's results are
// emitted once its rg has ended well and they have been checked, in
// batch order: so results stream in path order, a search under a limit
// ends when the caller stops taking, and memory holds the results of the
// batches in flight, not of the search.
//
// Measured over $(go env GOROOT)/src (11,478 files; 2 cores, warm cache)
// against rg walking and sorting itself (rg --sort path, single
// threaded) and rg in parallel with the results sorted in Go: rg --sort
// path orders a directory "x" as "x", not "x/", so its output would need
// a reordering window that is unbounded where a directory "x" sits next
// to "x.go"; and letting rg walk means applying its ignore rules, which
// differ from git's in corner cases, so a second walk had to prove them
// equal. Batches need neither, and the walk costs what rg's own walk
// does, on another core. See BenchmarkRipgrepModes for the figures.

// rgBatchFirst, rgBatchMax, rgBatchBytes and rgBatchHeld size batches:
// the first holds rgBatchFirst files (or the request's Limit, if
// larger), each next one rgBatchGrowth times as many as the one before,
// up to rgBatchMax files, rgBatchBytes of paths, and as many files as,
// at the rate of results per file of the last batch settled, make
// rgBatchHeld bytes of results. Small first batches give a limited
// search its first results soon; large ones later keep the cost of
// starting rg (about 3 ms of CPU each) small next to the search: 5 runs
// over GOROOT/src for a search that holds little. The
// results of a batch are held until its rg has ended: rgBatchHeld keeps
// what the batches in flight hold to a few MiB. Measured in a program
// that greps "func" over GOROOT/src copied 16 times and discards the
// results: a peak RSS of 31 to 37 MiB with this bound, 38 to 45 MiB with
// twice it, 302 MiB when the backend held every result to sort it.
const (
	rgBatchFirst = 64
	rgBatchMax   = 16384
	rgBatchBytes = 512 << 10
	rgBatchHeld  = 1 << 20
	// rgBatchUnsettled caps batches until one has settled and told how
	// many bytes of results a file holds: without it, the batches sent
	// while the first rg runs grew to rgBatchMax files and held 70 MB of
	// results ("func" over GOROOT/src copied 4 times, through agentsh
	// call: a peak RSS of 92 to 105 MiB, against 52 to 63 with the cap).
	rgBatchUnsettled = 1024
	// Each batch holds this many times the files of the one before; under
	// a limit only twice, as most of a later batch goes unused
	// (files_with_matches of "func" with a limit of 100 over GOROOT/src:
	// 21 ms of CPU growing by 2, 45 ms by 4; without a limit, growing by
	// 4 saves 4% of the CPU).
	rgBatchGrowth = 4
)

// rgPathMax is the length from which a path is searched in Go: rg opens
// files by path, and the kernel refuses paths of PATH_MAX bytes or more.
const rgPathMax = 4096

// rgBatch is a run of consecutive files of the walk.
type rgBatch struct {
	paths   []string      // the files, in path order
	args    []string      // what rg is given: files, and directories given whole
	inGo    bool          // searched in Go: paths too long for rg
	results []*FileResult // in path order, once done; Count 0: none
	err     error
	done    chan struct{}
}

// rgSearch is one Grep of the ripgrep backend.
type rgSearch struct {
	r        *Ripgrep
	top      *os.Root
	plan     *grepPlan
	superset bool
	args     []string     // rg's arguments, up to and with "--"
	perFile  atomic.Int64 // bytes of results per file given, in the last batch settled
}

func (s *rgSearch) run(parent context.Context, emit func(FileResult) bool) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	req := s.plan.req
	chk := newChecker(ctx, s.r, s.top, s.plan, s.superset)

	// rg processes at once: one more than the cores, so that one is
	// always under way while a batch is settled; under a limit two, as
	// batches grow and two cover three times the first, the size of the
	// limit.
	inFlight := max(s.r.native.workers, 2) + 1
	if req.Limit > 0 {
		inFlight = 2
	}
	order := make(chan *rgBatch, inFlight-1) // batches in path order
	var batches sync.WaitGroup
	var walkErr error
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		defer close(order)
		bb := &batchBuilder{size: max(s.r.batchFirst, min(req.Limit, s.r.batchMax)), first: s.r.batchFirst, max: s.r.batchMax, growth: rgBatchGrowth, perFile: &s.perFile, cur: &rgBatch{}}
		if req.Limit > 0 {
			bb.growth = 2
		}
		bb.send = func(b *rgBatch) bool {
			b.done = make(chan struct{})
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			batches.Add(1)
			go func() {
				defer batches.Done()
				defer close(b.done)
				s.runBatch(ctx, chk, b)
			}()
			return true
		}
		src := &rgSource{diskSource: newDiskSource(s.top, s.r.root), shapes: map[string]dirShape{}}
		src.stopped = func() bool { return ctx.Err() != nil }
		bb.shapes = src.shapes
		w := &walker{
			src:      src,
			top:      s.top,
			hidden:   req.Hidden,
			noIgnore: req.NoIgnore,
			stopped:  src.stopped,
			file: func(_ *dirHandle, name, rel string) bool {
				return !s.plan.filter.keep(name, rel) || bb.file(rel)
			},
		}
		walkErr = w.walk(s.plan.start)
		bb.finish()
	}()

	last, emitted, stopped := "", false, false
	var failed error
	for b := range order {
		<-b.done
		if ctx.Err() != nil {
			break
		}
		if b.err != nil {
			failed = b.err
			break
		}
		for i, f := range b.results {
			b.results[i] = nil // emitted or empty: not held any longer
			if f.Count == 0 {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			last, emitted = f.Path, true
			if !emit(*f) {
				stopped = true
				break
			}
		}
		if stopped {
			break
		}
	}
	cancel()
	<-walked
	batches.Wait()
	chk.close()
	switch {
	case stopped:
		return nil
	case failed != nil && (errors.Is(failed, errRgOutput) || errors.Is(failed, errRgMissed)):
		// rg missed what the native walk can read, or printed what
		// cannot be read: the native backend answers from where rg's
		// results end.
		stats.RipgrepFallbacks.Add(1)
		return s.r.native.Grep(parent, req, reduced(req.Mode, func(f FileResult) bool {
			return (emitted && f.Path <= last) || emit(f)
		}))
	case failed != nil:
		return failed
	case walkErr != nil:
		return walkErr
	}
	return parent.Err()
}

// runBatch runs rg over a batch, or searches it in Go, and settles every
// file with a match on the checker.
func (s *rgSearch) runBatch(ctx context.Context, chk *checker, b *rgBatch) {
	var pending sync.WaitGroup
	settle := func(f *FileResult) {
		b.results = append(b.results, f)
		pending.Add(1)
		chk.add(f, &pending)
	}
	if b.inGo {
		for _, p := range b.paths {
			if ctx.Err() != nil {
				break
			}
			f := &FileResult{Path: p}
			chk.searchGo(f)
			b.results = append(b.results, f)
		}
		return
	}
	args := append(s.args[:len(s.args):len(s.args)], b.args...)
	next, last := 0, "" // the next file to report on, and the last reported
	var unknown error
	err := s.r.runRg(ctx, args, s.plan.req.Mode == ModeCount, func(f *FileResult) {
		if last != "" && f.Path <= last {
			unknown = fmt.Errorf("%w: a report on %q after one on %q", errRgOutput, f.Path, last)
			return
		}
		last = f.Path
		for next < len(b.paths) && b.paths[next] < f.Path {
			next++
		}
		if next < len(b.paths) && b.paths[next] == f.Path {
			next++
			settle(f)
		}
		// Otherwise a file the walk left out of a directory rg was
		// given whole, or one rg was not given: nothing to emit.
	})
	pending.Wait()
	if err == nil {
		err = unknown
	}
	b.err = err
	held := 0
	for _, f := range b.results {
		held += heldBytes(f)
	}
	s.perFile.Store(int64(held / len(b.paths)))
}

// heldBytes is about what a result takes in memory.
func heldBytes(f *FileResult) int {
	n := 64 + len(f.Path) + 32*len(f.Lines)
	for _, l := range f.Lines {
		n += len(l.Text)
	}
	return n
}

// rgDirWhole is the least share of a directory's regular files that the
// walk must keep for rg to be given the directory whole: rg then
// searches every regular file in it (--max-depth 1), those the walk left
// out too. Given by path, rg stats a file three times before it reads it
// (measured with strace, ripgrep 13): over GOROOT/src that cost 40% more
// system time than rg's own walk, and giving directories whole removes
// it.
const rgDirWhole = 2 // at least one half

// dirShape is what decides whether a directory may go to rg whole.
type dirShape struct {
	files int  // its regular files
	whole bool // no subdirectory sorts between its files: the walk visits them in one run
}

// rgSource is the disk, as walked by the ripgrep backend: it notes the
// shape of every directory it reads.
type rgSource struct {
	*diskSource
	shapes map[string]dirShape // until the walk meets the directory's first file
}

func (s *rgSource) readDir(d *dirHandle) ([]dirEntry, error) {
	entries, err := s.diskSource.readDir(d)
	first, last := -1, -1
	for i, e := range entries {
		if e.kind != kindFile {
			continue
		}
		if first < 0 || compareEntries(e, entries[first]) < 0 {
			first = i
		}
		if last < 0 || compareEntries(e, entries[last]) > 0 {
			last = i
		}
	}
	if first < 0 {
		return entries, err
	}
	shape := dirShape{whole: true}
	for _, e := range entries {
		switch {
		case e.kind == kindFile:
			shape.files++
		case e.kind == kindDir && compareEntries(e, entries[first]) > 0 && compareEntries(e, entries[last]) < 0:
			shape.whole = false
		}
	}
	s.shapes[d.rel] = shape
	return entries, err
}

// batchBuilder cuts the walk's files into batches. A directory rg may
// be given whole (see rgDirWhole) is held until the walk leaves it, and
// never split: a batch ends only between directories, so it holds at
// most size files plus one directory's (at most max).
type batchBuilder struct {
	size, first, max, growth int
	perFile                  *atomic.Int64 // see rgSearch.perFile
	send                     func(*rgBatch) bool
	shapes                   map[string]dirShape
	cur                      *rgBatch
	curBytes                 int
	// The directory being held: its files so far, and its shape.
	held      []string
	heldDir   string
	heldShape dirShape
	holding   bool
}

func (bb *batchBuilder) file(rel string) bool {
	dir := ""
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir = rel[:i]
	}
	if bb.holding && dir == bb.heldDir {
		bb.held = append(bb.held, rel)
		return true
	}
	if !bb.release() {
		return false
	}
	shape, ok := bb.shapes[dir]
	delete(bb.shapes, dir)
	if ok && shape.whole && shape.files <= bb.max && len(dir) < rgPathMax-256 {
		bb.holding, bb.heldDir, bb.heldShape = true, dir, shape
		bb.held = append(bb.held[:0], rel)
		return true
	}
	return bb.add(rel, len(rel) >= rgPathMax)
}

// release adds the directory held to the batch.
func (bb *batchBuilder) release() bool {
	if !bb.holding {
		return true
	}
	bb.holding = false
	if rgDirWhole*len(bb.held) < bb.heldShape.files {
		for _, rel := range bb.held {
			if !bb.add(rel, false) {
				return false
			}
		}
		return true
	}
	if bb.cur.inGo && !bb.cut() {
		return false
	}
	arg := bb.heldDir
	if arg == "" {
		arg = "."
	}
	bb.cur.args = append(bb.cur.args, rgArg(arg))
	bb.cur.paths = append(bb.cur.paths, bb.held...)
	bb.curBytes += len(arg) + 1
	return bb.full()
}

// add adds one file, given to rg by path or, if inGo, searched in Go.
func (bb *batchBuilder) add(rel string, inGo bool) bool {
	if len(bb.cur.paths) > 0 && bb.cur.inGo != inGo && !bb.cut() {
		return false
	}
	bb.cur.inGo = inGo
	bb.cur.paths = append(bb.cur.paths, rel)
	if !inGo {
		bb.cur.args = append(bb.cur.args, rgArg(rel))
		bb.curBytes += len(rel) + 1
	}
	return bb.full()
}

func (bb *batchBuilder) full() bool {
	if len(bb.cur.paths) >= bb.size || bb.curBytes >= rgBatchBytes {
		return bb.cut()
	}
	return true
}

// cut sends the batch under way and starts the next, larger one.
func (bb *batchBuilder) cut() bool {
	b := bb.cur
	bb.cur, bb.curBytes = &rgBatch{}, 0
	if len(b.paths) == 0 {
		return true
	}
	if !b.inGo {
		bb.size = min(bb.growth*bb.size, bb.max)
		if per := bb.perFile.Load(); per > 0 {
			bb.size = min(bb.size, max(bb.first, int(rgBatchHeld/per)))
		} else {
			// No batch has settled yet, so what a file holds is not
			// known: the batches sent meanwhile stay small.
			bb.size = min(bb.size, rgBatchUnsettled)
		}
	}
	return bb.send(b)
}

// finish sends what is left once the walk has ended.
func (bb *batchBuilder) finish() {
	if bb.release() {
		bb.cut()
	}
}

// rgArg is how rg is given a path: "-" alone would be standard input.
func rgArg(rel string) string {
	if rel == "-" {
		return "./-"
	}
	return rel
}
