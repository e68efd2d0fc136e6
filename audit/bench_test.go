package audit

import (
	"bytes"
	"path/filepath"
	"testing"
)

// BenchmarkAppend appends one record of a bash call to a log: encode,
// lock, check the file's size, write, unlock.
func BenchmarkAppend(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "a.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := testRecord(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify10k verifies a log of 10,000 records.
func BenchmarkVerify10k(b *testing.B) {
	log := validLog(b, 10_000)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Verify(bytes.NewReader(log))
		if err != nil || !rep.Intact() || rep.Records != 10_000 {
			b.Fatalf("Verify = %+v, %v", rep.Problems, err)
		}
	}
}
