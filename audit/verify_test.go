package audit

import (
	"bytes"
	"strings"
	"testing"
)

// TestVerifyIntact: a log Log wrote verifies, with its count and head.
func TestVerifyIntact(t *testing.T) {
	b := validLog(t, 5)
	rep := verifyBytes(t, b)
	if !rep.Intact() || rep.Records != 5 || rep.HeadSeq != 5 {
		t.Fatalf("Verify = %+v, want 5 records and no problem", rep)
	}
	ls := lines(b)
	_, hash, _ := split(bytes.TrimSuffix(ls[4], []byte("\n")))
	if rep.Head != string(hash) {
		t.Errorf("Head = %s, want the last record's hash %s", rep.Head, hash)
	}
	if !rep.CheckHead(rep.Head) {
		t.Errorf("CheckHead(own head) = false")
	}
	_, h2, _ := split(bytes.TrimSuffix(ls[1], []byte("\n")))
	if !rep.CheckHead(string(h2)) {
		t.Errorf("CheckHead(an earlier record's hash) = false; a log that grew since must pass")
	}
	if empty := verifyBytes(t, nil); !empty.Intact() || empty.Records != 0 || empty.Head != "" {
		t.Errorf("Verify(empty) = %+v, want intact with no records", empty)
	}
}

// TestVerifyDroppedTail: dropping the last records leaves a valid chain;
// only the head kept from before shows it.
func TestVerifyDroppedTail(t *testing.T) {
	b := validLog(t, 5)
	full := verifyBytes(t, b)
	ls := lines(b)
	cut := bytes.Join(ls[:3], nil)
	rep := verifyBytes(t, cut)
	if !rep.Intact() || rep.Records != 3 {
		t.Fatalf("Verify(first 3 records) = %+v, want an intact chain of 3", rep)
	}
	if rep.CheckHead(full.Head) {
		t.Fatal("CheckHead(the head of 5 records) on 3 records = true")
	}
	p := rep.Problems[0]
	if p.Kind != ProblemHead || !strings.Contains(p.Message, full.Head) || !strings.Contains(p.Message, "cut or rewritten") {
		t.Errorf("problem %+v, want a head problem naming the hash", p)
	}
	if rep.CheckHead("not hex") {
		t.Error("CheckHead(not hex) = true")
	}
}

// TestVerifyNames checks what Verify says of each kind of damage, by
// hand; FuzzVerifyMutations checks the record it names at random.
func TestVerifyNames(t *testing.T) {
	b := validLog(t, 4)
	ls := lines(b)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		name    string
		log     []byte
		kind    string
		line    int
		seq     uint64
		message string
	}{
		{"dropped", join(ls[0], ls[2], ls[3]), ProblemDropped, 2, 2, "record seq 2 is missing: line 2 holds seq 3 after seq 1"},
		{"dropped first", join(ls[1], ls[2]), ProblemDropped, 1, 1, "record seq 1 is missing: line 1 holds seq 2 at the start"},
		{"dropped two", join(ls[0], ls[3]), ProblemDropped, 2, 2, "records seq 2 to 3 are missing"},
		{"duplicated", join(ls[0], ls[1], ls[1], ls[2]), ProblemDuplicated, 3, 2, "record seq 2 is duplicated: line 3 repeats line 2"},
		{"swapped", join(ls[0], ls[2], ls[1], ls[3]), ProblemReordered, 2, 3, "record seq 3 is out of order: line 2 holds it where seq 2 belongs (seq 2 is at line 3)"},
		{"not json", join(ls[0], []byte("hello\n"), ls[1]), ProblemNotRecord, 2, 2, "not a record of an audit log (record seq 2 belongs here): not JSON"},
		{"json", join(ls[0], []byte(`{"a":1}`+"\n"), ls[1]), ProblemNotRecord, 2, 2, "JSON, but not a record"},
		{"edited", join(ls[0], bytes.Replace(ls[1], []byte(`"bash"`), []byte(`"bask"`), 1), ls[2]), ProblemChanged, 2, 2, "record seq 2 was changed: its hash does not match its bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := firstProblem(t, verifyBytes(t, c.log), c.log)
			if p.Kind != c.kind || p.Line != c.line || p.Seq != c.seq || !strings.Contains(p.Message, c.message) {
				t.Errorf("first problem %+v, want %s at line %d naming seq %d, saying %q", p, c.kind, c.line, c.seq, c.message)
			}
		})
	}
}

// TestVerifyRehashed: a record changed with its hash recomputed is
// caught by the next record's prev, and named; so is a prev changed.
func TestVerifyRehashed(t *testing.T) {
	b := validLog(t, 4)
	ls := lines(b)
	changed := rehash(t, ls[1], func(line []byte) []byte { return bytes.Replace(line, []byte(`"bash"`), []byte(`"bask"`), 1) })
	log := bytes.Join([][]byte{ls[0], changed, ls[2], ls[3]}, nil)
	p := firstProblem(t, verifyBytes(t, log), log)
	if p.Kind != ProblemChanged || p.Seq != 2 || p.Line != 2 || !strings.Contains(p.Message, "was changed after seq 3 was written") {
		t.Errorf("first problem %+v, want seq 2 at line 2 named as changed", p)
	}
	// seq 3's prev changed and rehashed: seq 4 no longer chains to it.
	badPrev := rehash(t, ls[2], func(line []byte) []byte {
		i := bytes.Index(line, []byte(`"prev":"`)) + len(`"prev":"`)
		line[i] ^= 1
		return line
	})
	log = bytes.Join([][]byte{ls[0], ls[1], badPrev, ls[3]}, nil)
	p = firstProblem(t, verifyBytes(t, log), log)
	if p.Kind != ProblemChanged || p.Seq != 3 || p.Line != 3 {
		t.Errorf("first problem %+v, want seq 3 at line 3 named as changed", p)
	}
}

// rehash changes a line with edit and gives it the hash of its new
// bytes, as someone covering their tracks would.
func rehash(t testing.TB, line []byte, edit func([]byte) []byte) []byte {
	t.Helper()
	hashed, _, ok := split(bytes.TrimSuffix(line, []byte("\n")))
	if !ok {
		t.Fatalf("not a record: %s", line)
	}
	hashed = edit(bytes.Clone(hashed))
	s := sum(hashed)
	return []byte(string(hashed) + hashMember + string(s[:]) + "\"}\n")
}
