package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"

	"github.com/agentsh/agentsh/internal/filelock"
	"github.com/agentsh/agentsh/internal/userfile"
)

// Log appends records to an audit log file. Append is safe for
// concurrent use by goroutines, and by processes that append to the same
// file: each holds an exclusive lock on the file (flock; LockFileEx on
// Windows) while it reads where the chain ends and writes its record in
// one write, so records never interleave and the chain stays whole.
type Log struct {
	path string

	mu     sync.Mutex
	f      *os.File
	buf    []byte
	closed bool
	// The chain's end as this Log last wrote or read it: the file's size
	// then, and the last record's seq and hash. While the file still has
	// that size nobody else has appended, and the tail need not be read.
	end  int64
	seq  uint64
	hash string
	torn bool // the file ends in a torn line
}

// Open opens the audit log at path to append to it, creating it (mode
// 0600) when it is missing. path must name a regular file, not a
// symbolic link: a link put in the log's place would send the records
// elsewhere. A file that is not empty must end like an audit log: its
// last whole line a record, or a line a writer left torn after one.
func Open(path string) (*Log, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	l := &Log{path: path, f: f, end: -1}
	// Read the tail now, under the lock, so that a file that is not an
	// audit log is refused before anything is appended to it.
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %v", path, err)
	}
	defer filelock.Unlock(f)
	if _, err := l.chainEnd(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// openFile opens path to read and append, creating it when missing.
func openFile(path string) (*os.File, error) {
	for range 3 { // the file may come and go between the two opens
		f, err := userfile.Open(path, os.O_RDWR|os.O_APPEND, userfile.RefuseLinks)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s keeps being created and removed", path)
}

// Path is the file the log appends to.
func (l *Log) Path() string { return l.path }

// Append appends rec to the log, chained to the record before it: it sets
// rec's Seq, Prev and Hash to what the line holds. A line a crashed
// writer left torn at the end of the file is ended with a newline first,
// and the chain goes on from the last whole record, so nothing is lost
// or overwritten.
func (l *Log) Append(rec *Record) error {
	b, err := body(rec)
	if err != nil {
		return fmt.Errorf("encoding the record of %s: %v", rec.Call.Tool, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("appending to %s: the audit log is closed", l.path)
	}
	if err := filelock.Lock(l.f); err != nil {
		return fmt.Errorf("locking %s: %v", l.path, err)
	}
	defer filelock.Unlock(l.f)
	torn, err := l.chainEnd()
	if err != nil {
		return err
	}
	line := l.buf[:0]
	if torn {
		line = append(line, '\n')
	}
	prev := l.hash
	line, hash := seal(line, l.seq+1, prev, b)
	l.buf = line
	if cap(l.buf) > 1<<20 {
		l.buf = nil // do not keep a huge record's buffer
	}
	start := l.end
	l.end = -1 // unknown until the write is whole
	if _, err := l.f.Write(line); err != nil {
		return fmt.Errorf("appending to %s: %v", l.path, err)
	}
	l.end, l.seq, l.hash, l.torn = start+int64(len(line)), l.seq+1, hash, false
	rec.Seq, rec.Prev, rec.Hash = l.seq, prev, hash
	return nil
}

// chainEnd brings l.end, l.seq and l.hash up to date with the file, and
// reports whether the file ends in a torn line. The caller holds the
// lock.
func (l *Log) chainEnd() (torn bool, err error) {
	info, err := l.f.Stat()
	if err != nil {
		return false, fmt.Errorf("reading %s: %v", l.path, err)
	}
	size := info.Size()
	if size == l.end {
		return l.torn, nil
	}
	seq, hash, torn, err := readTail(l.f, size)
	if err != nil {
		return false, fmt.Errorf("%s: %v; name a new file, or an audit log", l.path, err)
	}
	l.end, l.seq, l.hash, l.torn = size, seq, hash, torn
	return torn, nil
}

// Close closes the file; Append fails after it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	return l.f.Close()
}

// tailChunk is how much of the file readTail reads at a time, backwards.
const tailChunk = 64 << 10

// headLen is enough of a line's start for its seq and the start of prev.
const headLen = 64

// readTail finds the chain's end in the first size bytes of r: the seq
// and hash of the last whole record, skipping the torn lines of writers
// that crashed, and whether the last line is torn (has no newline). It
// reads only the ends of the lines it looks at, however long they are.
func readTail(r io.ReaderAt, size int64) (seq uint64, hash string, torn bool, err error) {
	lines := backwardLines{r: r, pos: size}
	for first := true; ; first = false {
		start, end, ok, err := lines.next()
		if err != nil || !ok {
			return 0, "", torn, err // !ok: no record, only torn lines; the chain starts anew
		}
		if first {
			torn = !lines.newline
		}
		head := make([]byte, min(end-start, headLen))
		if _, err := r.ReadAt(head, start); err != nil {
			return 0, "", false, err
		}
		if end-start >= int64(len(`{"seq":1,"prev":""`)+suffixLen) {
			tail := make([]byte, suffixLen)
			if _, err := r.ReadAt(tail, end-int64(suffixLen)); err != nil {
				return 0, "", false, err
			}
			if h, ok := hashSuffix(tail); ok {
				s, ok := seqOf(head)
				if !ok {
					return 0, "", false, errors.New("it is not an audit log: its last record does not begin with its seq")
				}
				return s, h, torn, nil
			}
		}
		if !tornStart(head) {
			return 0, "", false, errors.New("it is not an audit log: its last line is not a record")
		}
	}
}

// seqOf reads the seq a record's line starts with.
func seqOf(line []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"seq":`))
	if !ok {
		return 0, false
	}
	n := bytes.IndexByte(rest, ',')
	if n <= 0 {
		return 0, false
	}
	s, err := strconv.ParseUint(string(rest[:n]), 10, 64)
	return s, err == nil && bytes.HasPrefix(rest[n:], []byte(`,"prev":"`))
}

// prevOf reads the prev that follows seq at the start of a record's
// line.
func prevOf(line []byte) (string, bool) {
	i := bytes.Index(line, []byte(`,"prev":"`))
	if i < 0 || !bytes.HasPrefix(line, []byte(`{"seq":`)) {
		return "", false
	}
	rest := line[i+len(`,"prev":"`):]
	j := bytes.IndexByte(rest, '"')
	if j != 0 && j != hashLen {
		return "", false
	}
	return string(rest[:j]), true
}

// tornStart reports whether line may be the start of a record whose
// writer stopped: `{"seq":` or a part of it, then anything.
func tornStart(line []byte) bool {
	const start = `{"seq":`
	n := min(len(line), len(start))
	return string(line[:n]) == start[:n]
}

// backwardLines finds the lines of a file from its end.
type backwardLines struct {
	r   io.ReaderAt
	pos int64 // the lines before pos are still to be found
	// newline says the line next returned ended with a newline.
	newline bool
	chunk   []byte
}

// next returns where the line before pos starts and ends (without its
// newline); ok is false at the start of the file.
func (b *backwardLines) next() (start, end int64, ok bool, err error) {
	if b.pos <= 0 {
		return 0, 0, false, nil
	}
	if b.chunk == nil {
		b.chunk = make([]byte, tailChunk)
	}
	end = b.pos
	c := b.chunk[:1]
	if _, err := b.r.ReadAt(c, end-1); err != nil {
		return 0, 0, false, err
	}
	b.newline = c[0] == '\n'
	if b.newline {
		end--
	}
	// Read back a chunk at a time to the newline before the line.
	start = end
	for start > 0 {
		n := min(int64(tailChunk), start)
		c := b.chunk[:n]
		if _, err := b.r.ReadAt(c, start-n); err != nil {
			return 0, 0, false, err
		}
		if i := bytes.LastIndexByte(c, '\n'); i >= 0 {
			start = start - n + int64(i) + 1
			break
		}
		start -= n
	}
	b.pos = start
	return start, end, true, nil
}
