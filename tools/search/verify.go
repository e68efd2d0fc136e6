package search

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"
)

// This file checks what rg printed for a file against the file itself,
// opened below the root (see beneath): rg opens files by path and may
// have read another file than the one that path names now, even one
// outside the root.

// reportCheck is the outcome of checking rg's report on one file.
type reportCheck int

const (
	reportOK       reportCheck = iota // every line rg printed is the file's line of that number
	reportBinary                      // the file holds a NUL byte in its first 8 KiB
	reportMismatch                    // the file is not what rg printed
)

// verifyBuffer is the size of the chunks a file is checked in.
const verifyBuffer = 64 << 10

// checkReport reads rd and compares it with fr, what rg printed for the
// file with before and after lines of context. It reads the file only up
// to the last line printed (and one byte more where rg's context stops
// short of after lines), but at least its first 8 KiB for the binary
// rule. buf is scratch space, returned for reuse.
//
// reportOK proves that every line of fr, match or context, is the file's
// own: each matches or not by its text alone (or, with Multiline, by the
// lines it spans, which are the file's too), and the context around each
// match is complete. It does not prove that rg missed no match in lines it
// did not print; under a concurrent writer no backend promises a
// consistent view, only that what it prints comes from the tree.
func checkReport(rd io.Reader, buf []byte, fr *FileResult, before, after int) (reportCheck, []byte, error) {
	needEnd, ok := reportShape(fr, before, after)
	if !ok {
		return reportMismatch, buf, nil
	}
	if cap(buf) < verifyBuffer {
		buf = make([]byte, verifyBuffer)
	}
	buf = buf[:cap(buf)]
	n, err := io.ReadAtLeast(rd, buf, binaryPrefix)
	eof := err == io.EOF || err == io.ErrUnexpectedEOF
	if err != nil && !eof {
		return reportMismatch, buf, err
	}
	if isBinary(buf[:n]) {
		return reportBinary, buf, nil
	}
	lines := fr.Lines
	num, at := 1, 0 // the line being read, and how many of its bytes were
	data := buf[:n]
	for {
		for len(data) > 0 {
			if len(lines) == 0 {
				if needEnd {
					return reportMismatch, buf, nil // the file goes on
				}
				return reportOK, buf, nil
			}
			want := lines[0]
			if want.Number > num {
				// Pass the lines before want without looking at them.
				off, n := skipLines(data, want.Number-num)
				if off < 0 {
					num += n
					if n > 0 {
						at = len(data) - bytes.LastIndexByte(data, '\n') - 1
					} else {
						at += len(data)
					}
					break
				}
				num, at = want.Number, 0
				data = data[off:]
				continue
			}
			seg := data
			nl := bytes.IndexByte(data, '\n')
			if nl >= 0 {
				seg = data[:nl]
			}
			if want.Number == num {
				if at+len(seg) > len(want.Text) || want.Text[at:at+len(seg)] != string(seg) {
					return reportMismatch, buf, nil
				}
			}
			at += len(seg)
			if nl < 0 {
				break
			}
			if want.Number == num {
				if at != len(want.Text) {
					return reportMismatch, buf, nil
				}
				lines = lines[1:]
			}
			num, at = num+1, 0
			data = data[nl+1:]
		}
		if eof {
			break
		}
		n, err = rd.Read(buf)
		switch {
		case err == io.EOF || err == nil && n == 0:
			eof = true
		case err != nil:
			return reportMismatch, buf, err
		}
		data = buf[:n]
	}
	// The last line, without a "\n", exists if it has a byte.
	if len(lines) > 0 && lines[0].Number == num && at > 0 && at == len(lines[0].Text) {
		lines = lines[1:]
	}
	if len(lines) > 0 {
		return reportMismatch, buf, nil
	}
	return reportOK, buf, nil
}

// skipBlock is how much of a file skipLines counts newlines in at once.
const skipBlock = 512

// skipLines returns the offset just past the n-th "\n" of data (n > 0),
// or -1 and the number of "\n" in data if it holds fewer. It counts
// newlines a block at a time, which is several times faster than finding
// them one by one on lines of source code.
func skipLines(data []byte, n int) (off, count int) {
	for i := 0; i < len(data); i += skipBlock {
		block := data[i:min(i+skipBlock, len(data))]
		if c := bytes.Count(block, []byte{'\n'}); c < n {
			n -= c
			count += c
			continue
		}
		for j := 0; ; j++ {
			k := bytes.IndexByte(block[j:], '\n')
			j += k
			if n--; n == 0 {
				return i + j + 1, 0
			}
		}
	}
	return -1, count
}

// reportShape checks that fr's lines are what a search with before and
// after lines of context prints around its matching lines: in order, each
// once, all the context of every match and nothing else, except that the
// context after the last match may stop short, where the file ends. It
// reports whether the file must end after fr's last line.
func reportShape(fr *FileResult, before, after int) (needEnd, ok bool) {
	lines := fr.Lines
	count := 0
	for _, l := range lines {
		if l.Match {
			count++
		}
	}
	if count == 0 || count != fr.Count {
		return false, false
	}
	i := 0 // next line of fr to account for
	for k := 0; k < len(lines); {
		// The merged context of the matches from lines[k] on.
		if !lines[k].Match {
			k++
			continue
		}
		lo, hi := max(1, lines[k].Number-before), lines[k].Number+after
		for k++; k < len(lines) && (!lines[k].Match || lines[k].Number-before <= hi+1); k++ {
			if lines[k].Match {
				hi = max(hi, lines[k].Number+after)
			}
		}
		for num := lo; num <= hi; num++ {
			if i == len(lines) {
				// Context cut short: only by the end of the file.
				return true, k == len(lines)
			}
			if lines[i].Number != num {
				return false, false
			}
			i++
		}
	}
	return false, i == len(lines)
}

// checker settles, for each file rg reported, what the native backend
// would report, on a pool of workers. It opens the file below the root
// (see beneath) and checks rg's lines against it (see checkReport): a
// file that cannot be opened so, or is not a regular file, is dropped
// (leaving Count 0), and so is a binary one; a file that differs from
// what rg printed is searched again in Go, and so is every file when a
// superset pattern ran over whole files; the matches of a superset
// pattern on single lines are checked with Go's regexp. Under ModeCount
// rg only names the files with a match, and each is searched in Go for
// its count: rg's own count would say nothing of the file below the root.
type checker struct {
	ctx      context.Context
	files    *beneath
	plan     *grepPlan // the request's
	again    *grepPlan // for searching again: no context where no lines are read
	superset bool
	next     chan checkJob
	wg       sync.WaitGroup
}

type checkJob struct {
	f    *FileResult
	done *sync.WaitGroup
}

func newChecker(ctx context.Context, r *Ripgrep, top *os.Root, plan *grepPlan, superset bool) *checker {
	again := plan
	if plan.req.Mode != ModeContent {
		p := *plan
		p.req.Before, p.req.After = 0, 0
		again = &p
	}
	c := &checker{ctx: ctx, files: newBeneath(top, r.root), plan: plan, again: again, superset: superset, next: make(chan checkJob, 64)}
	for range r.native.workers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			s := newNativeSearcher(ctx, again)
			var buf []byte
			for j := range c.next {
				buf = c.check(s, buf, j.f)
				j.done.Done()
			}
		}()
	}
	return c
}

// add settles f on a worker, and calls done.Done when it is settled.
func (c *checker) add(f *FileResult, done *sync.WaitGroup) { c.next <- checkJob{f, done} }

// close ends the workers, once every file added is settled.
func (c *checker) close() {
	close(c.next)
	c.wg.Wait()
	c.files.close()
}

func (c *checker) check(s *nativeSearcher, buf []byte, f *FileResult) []byte {
	req := c.plan.req
	if req.Mode == ModeCount || (c.superset && req.Multiline) {
		c.research(s, f)
		return buf
	}
	rd, err := c.files.open(f.Path)
	if err != nil {
		*f = FileResult{Path: f.Path} // dropped, and its lines freed
		return buf
	}
	before, after := req.Before, req.After
	if req.Mode == ModeFiles {
		before, after = 0, 0 // rg printed its first match alone
	}
	verdict, buf, err := checkReport(rd, buf, f, before, after)
	rd.Close()
	switch {
	case err != nil || verdict == reportBinary:
		*f = FileResult{Path: f.Path}
	case verdict == reportMismatch:
		c.research(s, f)
	case c.superset:
		recheckLines(c.plan, f)
		if f.Count == 0 && req.Mode == ModeFiles {
			c.research(s, f) // a match may follow the line rg printed
		}
	}
	*f = reduce(req.Mode, *f)
	return buf
}

// research replaces f with the native backend's result for the file,
// opened below the root, reduced to what the request's mode reads.
func (c *checker) research(s *nativeSearcher, f *FileResult) {
	rel := f.Path
	*f = FileResult{Path: rel}
	rd, err := c.files.open(rel)
	if err != nil {
		return
	}
	defer rd.Close()
	*f = reduce(c.plan.req.Mode, s.searchReader(rel, rd))
	f.Path = rel
}

// searchGo searches a file in Go, on the caller's goroutine.
func (c *checker) searchGo(f *FileResult) {
	c.research(newNativeSearcher(c.ctx, c.again), f)
}
