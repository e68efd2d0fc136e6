package audit

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentsh/agentsh/internal/jsonl"
)

// Kinds of Problem: what Verify found wrong with a log.
const (
	// ProblemChanged: a record's bytes are not what was written. Its own
	// hash no longer matches it, or (when the hash was recomputed) the
	// next record's prev no longer names it.
	ProblemChanged = "changed"
	// ProblemDropped: records are missing where a line holds a later seq.
	ProblemDropped = "dropped"
	// ProblemDuplicated: a line repeats a record seen before.
	ProblemDuplicated = "duplicated"
	// ProblemReordered: a line holds a record that belongs elsewhere.
	ProblemReordered = "reordered"
	// ProblemNotRecord: a line is not a record at all (not JSON, or not
	// the shape of one), and no writer left it torn.
	ProblemNotRecord = "not_record"
	// ProblemTorn: a writer stopped in the middle of a record (a crash,
	// or the file was cut): the last line has no newline, or a line in
	// the middle is the start of a record that the next writer ended and
	// chained past. Verify goes on after a torn line in the middle.
	ProblemTorn = "torn"
	// ProblemHead: Report.CheckHead found no record with the head hash
	// kept from before.
	ProblemHead = "head"
)

// Problem is one thing wrong with a log: where it shows (Line, from 1;
// 0 for a ProblemHead, which is of the whole log),
// the record it names (Seq: the record changed, the first one dropped or
// misplaced, the one repeated or torn) and what it is.
type Problem struct {
	Kind    string `json:"kind"`
	Line    int    `json:"line"`
	Seq     uint64 `json:"seq"`
	Message string `json:"message"`
}

func (p Problem) Error() string {
	if p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// Report is what Verify found: how many records chain intact from the
// start (Records), the hash and seq of the last one (Head, HeadSeq: keep
// the head elsewhere to check later that the log was not cut or rewritten
// since, see CheckHead), and the problems, in the order of the lines:
// the torn lines the chain went on past, then the first break of the
// chain, where Verify stopped. A log is intact when there is none.
type Report struct {
	Records  int       `json:"records"`
	Head     string    `json:"head"`
	HeadSeq  uint64    `json:"head_seq"`
	Problems []Problem `json:"problems"`

	hashes [][32]byte // of the chained records, by seq
}

// Intact reports whether Verify found no problem.
func (r *Report) Intact() bool { return len(r.Problems) == 0 }

// CheckHead reports whether the chain holds a record whose hash is head:
// the head of the log as it was when head was kept. It is the only check
// that catches records dropped from the end, or a tail rewritten with
// new hashes, which a chain alone cannot show. When there is none it
// adds a ProblemHead.
func (r *Report) CheckHead(head string) bool {
	var want [32]byte
	if b, err := hex.DecodeString(head); err == nil && len(b) == 32 {
		copy(want[:], b)
		for _, h := range r.hashes {
			if h == want {
				return true
			}
		}
	}
	r.Problems = append(r.Problems, Problem{Kind: ProblemHead, Seq: r.HeadSeq,
		Message: fmt.Sprintf("no record has the head hash %q kept from before: the log was cut or rewritten since (it now holds %d records, head %s)", head, r.Records, r.Head)})
	return false
}

// IsHash reports whether s is a record's hash: 64 lowercase hex digits.
func IsHash(s string) bool {
	if len(s) != hashLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Text is the report for a person, naming the log name: each problem on
// a line, then the count and head.
func (r *Report) Text(name string) string {
	var b strings.Builder
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "%s: %v\n", name, p)
	}
	state := "intact"
	if !r.Intact() {
		state = "not intact"
	}
	records := "records"
	if r.Records == 1 {
		records = "record"
	}
	fmt.Fprintf(&b, "%s: %s, %d %s; head %s (seq %d)\n", name, state, r.Records, records, cmpOr(r.Head, "none"), r.HeadSeq)
	return b.String()
}

// MarshalJSON encodes the report with "intact" (see Intact).
func (r Report) MarshalJSON() ([]byte, error) {
	type fields Report
	problems := r.Problems
	if problems == nil {
		problems = []Problem{}
	}
	return json.Marshal(struct {
		Intact bool `json:"intact"`
		fields
		Problems []Problem `json:"problems"`
	}{r.Intact(), fields(r), problems})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Verify reads an audit log and checks every line: that it is a record,
// that its hash matches its bytes, that seq counts up from 1 without
// gaps and that prev is the hash of the record before. It stops at the
// first break of the chain and names the record: the one changed, the
// first one dropped, the one repeated, the first one out of place. The
// error is only for reading r.
func Verify(r io.Reader) (Report, error) {
	v := verifier{lines: lineReader{br: bufio.NewReaderSize(r, 64<<10)}}
	err := v.run()
	return v.rep, err
}

type verifier struct {
	lines lineReader
	rep   Report
	seq   uint64 // of the last chained record
	hash  string
	first []int // the line of each chained record, by seq
}

// parsed is a line read as a record.
type parsed struct {
	line    int
	newline bool
	raw     []byte
	ok      bool // a record whose hash matches its bytes
	seq     uint64
	prev    string
	hash    string
	json    bool // valid JSON that begins with a seq
	shaped  bool // and a prev, and it ends with a hash
}

func (v *verifier) run() error {
	for {
		p, err := v.lines.next()
		if err != nil || p == nil {
			return err
		}
		if stop, err := v.check(p); stop || err != nil {
			return err
		}
	}
}

// check checks one line against the chain; stop says the chain broke.
func (v *verifier) check(p *parsed) (stop bool, err error) {
	want := v.seq + 1
	switch {
	case p.ok && p.seq == want && p.prev == v.hash:
		v.chain(p)
		if !p.newline {
			v.problem(ProblemTorn, p.line, p.seq, fmt.Sprintf("the log ends without a newline after record seq %d: the file was cut, or its writer stopped, just before the end", p.seq))
		}
		return false, nil
	case !p.ok:
		return v.badLine(p, want)
	case p.seq == want:
		// Its own hash holds, but it does not chain to the record before.
		return true, v.brokenLink(p)
	case p.seq > want:
		return true, v.ahead(p, want)
	}
	// p.seq < want: a record seen before, or one that should have come
	// earlier.
	if i := int(p.seq) - 1; i >= 0 && i < len(v.rep.hashes) && hex.EncodeToString(v.rep.hashes[i][:]) == p.hash {
		v.problem(ProblemDuplicated, p.line, p.seq, fmt.Sprintf("record seq %d is duplicated: line %d repeats line %d (seq %d belongs here)", p.seq, p.line, v.first[i], want))
		return true, nil
	}
	v.problem(ProblemReordered, p.line, p.seq, fmt.Sprintf("record seq %d is out of order: line %d holds it after seq %d (seq %d belongs here)", p.seq, p.line, v.seq, want))
	return true, nil
}

func (v *verifier) chain(p *parsed) {
	var h [32]byte
	hex.Decode(h[:], []byte(p.hash))
	v.rep.hashes = append(v.rep.hashes, h)
	v.first = append(v.first, p.line)
	v.seq, v.hash = p.seq, p.hash
	v.rep.Records++
	v.rep.Head, v.rep.HeadSeq = p.hash, p.seq
}

func (v *verifier) problem(kind string, line int, seq uint64, msg string) {
	v.rep.Problems = append(v.rep.Problems, Problem{Kind: kind, Line: line, Seq: seq, Message: msg})
}

// badLine handles a line that is not a whole record with its hash: a
// torn line, which the chain goes on past when the next line chains to
// the record before it, or a record changed or not a record at all.
func (v *verifier) badLine(p *parsed, want uint64) (bool, error) {
	if !p.json && v.tornHere(p.raw, want) {
		torn := []*parsed{p}
		for {
			var next *parsed
			if torn[len(torn)-1].newline {
				var err error
				if next, err = v.lines.next(); err != nil {
					return true, err
				}
			}
			switch {
			case next == nil: // the end of the log
				for _, t := range torn {
					v.problem(ProblemTorn, t.line, want, fmt.Sprintf("record seq %d is torn: the log ends in the middle of it (its writer stopped, a crash, or the file was cut); the next append ends the line and chains on from seq %d", want, v.seq))
				}
				return true, nil
			case !next.json && v.tornHere(next.raw, want):
				torn = append(torn, next)
				continue
			case next.ok && next.seq == want && next.prev == v.hash:
				for _, t := range torn {
					v.problem(ProblemTorn, t.line, want, fmt.Sprintf("a record seq %d is torn: its writer stopped in the middle of it (a crash), and the next writer ended the line and wrote seq %d at line %d; no record of the chain is lost", want, want, next.line))
				}
				return v.check(next)
			}
			break
		}
	}
	if p.shaped {
		v.problem(ProblemChanged, p.line, want, fmt.Sprintf("record seq %d was changed: its hash does not match its bytes", want))
		return true, nil
	}
	v.problem(ProblemNotRecord, p.line, want, fmt.Sprintf("not a record of an audit log (record seq %d belongs here): %s", want, notRecordWhy(p.raw)))
	return true, nil
}

// tornHere reports whether raw may be the start of record want, chained
// to the last record: a part of its head, or its whole head and more.
func (v *verifier) tornHere(raw []byte, want uint64) bool {
	h := head(nil, want, v.hash)
	n := min(len(raw), len(h))
	return string(raw[:n]) == string(h[:n])
}

// brokenLink names the record that changed where p, the record due,
// does not chain to the one before: that one, when p's successor still
// chains to p (it was changed and its hash recomputed), else p.
func (v *verifier) brokenLink(p *parsed) error {
	if p.seq == 1 {
		v.problem(ProblemChanged, p.line, 1, fmt.Sprintf("record seq 1 was changed: its prev is %q, and the first record has none", p.prev))
		return nil
	}
	next, err := v.lines.next()
	if err != nil {
		return err
	}
	if next == nil || next.ok && next.seq == p.seq+1 && next.prev == p.hash {
		prevLine := v.first[len(v.first)-1]
		v.problem(ProblemChanged, prevLine, v.seq, fmt.Sprintf("record seq %d (line %d) was changed after seq %d was written: its hash is no longer the prev of seq %d (line %d)", v.seq, prevLine, p.seq, p.seq, p.line))
		return nil
	}
	v.problem(ProblemChanged, p.line, p.seq, fmt.Sprintf("record seq %d (line %d) was changed: its prev is not the hash of seq %d, and seq %d does not chain to it either", p.seq, p.line, v.seq, p.seq+1))
	return nil
}

// ahead handles a record from later in the chain where want belongs:
// the records in between were dropped, unless one of them comes later
// in the file, which makes p the first record out of place.
func (v *verifier) ahead(p *parsed, want uint64) error {
	for {
		q, err := v.lines.nextSeq()
		if err != nil {
			return err
		}
		if q == nil {
			break
		}
		if q.seq >= want && q.seq < p.seq {
			v.problem(ProblemReordered, p.line, p.seq, fmt.Sprintf("record seq %d is out of order: line %d holds it where seq %d belongs (seq %d is at line %d)", p.seq, p.line, want, q.seq, q.line))
			return nil
		}
	}
	what := fmt.Sprintf("record seq %d is missing", want)
	if p.seq > want+1 {
		what = fmt.Sprintf("records seq %d to %d are missing", want, p.seq-1)
	}
	after := "at the start"
	if v.seq > 0 {
		after = fmt.Sprintf("after seq %d", v.seq)
	}
	kind := ProblemDropped
	v.problem(kind, p.line, want, fmt.Sprintf("%s: line %d holds seq %d %s", what, p.line, p.seq, after))
	return nil
}

// notRecordWhy says briefly why a line is not a record.
func notRecordWhy(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not JSON (" + strings.TrimPrefix(err.Error(), "json: ") + ")"
	}
	return `JSON, but not a record (a record begins with "seq" and "prev" and ends with "hash")`
}

// lineReader reads the lines of a log as records, with one line of
// look-back.
type lineReader struct {
	br *bufio.Reader
	// bufs hold the last two lines read, in turns: a parsed line's raw
	// bytes stay valid until the line after next is read.
	bufs    [2][]byte
	n       int
	pending *parsed
}

func (l *lineReader) unread(p *parsed) { l.pending = p }

// next reads and parses the next line; nil at the end.
func (l *lineReader) next() (*parsed, error) {
	if p := l.pending; p != nil {
		l.pending = nil
		return p, nil
	}
	raw, err := l.read()
	if raw == nil {
		return nil, err
	}
	p := &parsed{line: l.n}
	raw, p.newline = bytes.CutSuffix(raw, []byte("\n"))
	p.raw = raw
	// The chain is in the line's fixed head and tail; the rest need only
	// be JSON.
	p.json = json.Valid(p.raw)
	seq, seqOK := seqOf(p.raw)
	p.json = p.json && seqOK
	hashed, hash, ok := split(p.raw)
	prev, prevOK := prevOf(p.raw)
	p.shaped = ok && p.json && prevOK
	if p.shaped {
		s := sum(hashed)
		p.ok = string(s[:]) == string(hash)
		p.seq, p.prev, p.hash = seq, prev, string(hash)
	}
	return p, nil
}

// nextSeq reads the next line for its seq alone (0 and no error: not a
// record); nil at the end.
func (l *lineReader) nextSeq() (*parsed, error) {
	if p := l.pending; p != nil {
		l.pending = nil
		return p, nil
	}
	raw, err := l.read()
	if raw == nil {
		return nil, err
	}
	s, _ := seqOf(raw)
	return &parsed{line: l.n, seq: s}, nil
}

// read returns the next line with its newline, or nil at the end.
func (l *lineReader) read() ([]byte, error) {
	i := l.n % 2
	line, err := jsonl.ReadLine(l.br, l.bufs[i][:0])
	l.bufs[i] = line
	if len(line) == 0 {
		if err == io.EOF {
			err = nil
		}
		return nil, err
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	l.n++
	return line, nil
}
