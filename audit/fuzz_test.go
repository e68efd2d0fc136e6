package audit

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Mutations FuzzVerifyMutations makes to a valid log.
const (
	mutateNone = iota
	mutateFlip
	mutateDrop
	mutateDuplicate
	mutateReorder
	mutateRehash
	mutateCut
	mutations
)

// FuzzVerifyMutations damages a valid log of 2 to 9 records at random —
// flips a byte, drops, duplicates or reorders records, changes one and
// recomputes its hash, cuts the file as a crash would — and checks that Verify finds the damage and
// names the right record; an intact log always passes. (Damage to the
// last record that a chain cannot show — dropped, or changed with a new
// hash — must fail the check of the head kept from before.)
func FuzzVerifyMutations(f *testing.F) {
	for op := range mutations {
		for _, n := range []uint8{0, 3, 7} {
			f.Add(uint8(op), n, uint16(0), uint16(1))
			f.Add(uint8(op), n, uint16(977), uint16(13))
			f.Add(uint8(op), n, uint16(0xffff), uint16(0xffff))
		}
	}
	f.Add(uint8(mutateFlip), uint8(2), uint16(399), uint16(10)) // a newline flipped
	f.Fuzz(func(t *testing.T, op, size uint8, a, b uint16) {
		n := 2 + int(size)%8
		orig := validLog(t, n)
		ls := lines(orig)
		full := verifyBytes(t, orig)
		rng := rand.New(rand.NewPCG(uint64(a), uint64(b)))
		var (
			log      []byte
			wantSeq  uint64 // the record the first problem must name
			wantLine int
			wantKind string // "" when any kind will do
			headOnly bool   // only the head check can show it
		)
		switch op % mutations {
		case mutateNone:
			rep := verifyBytes(t, orig)
			if !rep.Intact() || rep.Records != n || !rep.CheckHead(full.Head) {
				t.Fatalf("an intact log of %d records: %+v", n, rep)
			}
			return
		case mutateFlip:
			pos := int(a) % len(orig)
			log = bytes.Clone(orig)
			log[pos] ^= byte(1 + int(b)%255)
			k := bytes.Count(orig[:pos], []byte("\n")) // records before pos's line
			wantSeq, wantLine = uint64(k+1), k+1
		case mutateDrop:
			k := rng.IntN(n)
			m := 1 + rng.IntN(n-k)
			log = bytes.Join(append(append([][]byte{}, ls[:k]...), ls[k+m:]...), nil)
			wantSeq, wantLine, wantKind = uint64(k+1), k+1, ProblemDropped
			headOnly = k+m == n
		case mutateDuplicate:
			k := rng.IntN(n)
			at := k + 1 + rng.IntN(n-k) // after record k, anywhere later
			out := append(append([][]byte{}, ls[:at]...), ls[k])
			log = bytes.Join(append(out, ls[at:]...), nil)
			wantSeq, wantLine, wantKind = uint64(k+1), at+1, ProblemDuplicated
		case mutateReorder:
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			i := rng.IntN(n - 1)
			j := i + 2 + rng.IntN(n-i-1) // shuffle order[i:j], of 2 or more
			for sorted(order) {
				rng.Shuffle(j-i, func(x, y int) { order[i+x], order[i+y] = order[i+y], order[i+x] })
			}
			var out [][]byte
			first := -1
			for i, o := range order {
				out = append(out, ls[o])
				if first < 0 && o != i {
					first = i
				}
			}
			log = bytes.Join(out, nil)
			wantSeq, wantLine, wantKind = uint64(order[first]+1), first+1, ProblemReordered
		case mutateRehash:
			k := rng.IntN(n)
			out := append([][]byte{}, ls...)
			out[k] = rehash(t, ls[k], func(line []byte) []byte { return bytes.Replace(line, []byte(`"bash"`), []byte(`"rm -rf"`), 1) })
			log = bytes.Join(out, nil)
			wantSeq, wantLine, wantKind = uint64(k+1), k+1, ProblemChanged
			headOnly = k == n-1
		case mutateCut:
			pos := int(a) % len(orig)
			log = orig[:pos]
			k := bytes.Count(log, []byte("\n")) // whole records left
			wantSeq, wantLine, wantKind = uint64(k+1), k+1, ProblemTorn
			headOnly = pos == 0 || orig[pos-1] == '\n' // whole records cut off
		}
		rep := verifyBytes(t, log)
		if headOnly {
			if !rep.Intact() {
				t.Fatalf("damage at the end: Verify found %+v, want an intact chain", rep.Problems)
			}
			if rep.CheckHead(full.Head) {
				t.Fatalf("damage at the end passed the check of the head kept before\n%s", log)
			}
			return
		}
		p := firstProblem(t, rep, log)
		if p.Seq != wantSeq || p.Line != wantLine || wantKind != "" && p.Kind != wantKind {
			t.Fatalf("first problem %+v, want it to name seq %d at line %d (%s)\nlog:\n%s", p, wantSeq, wantLine, wantKind, log)
		}
	})
}

func sorted(order []int) bool {
	for i, o := range order {
		if o != i {
			return false
		}
	}
	return true
}
