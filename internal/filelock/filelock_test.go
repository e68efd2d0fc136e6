package filelock

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestLockExcludes: writers each with their own open file of one path
// read, increment and write back a counter under the lock; no increment
// is lost. Append's lines of 64 KiB stay whole.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	os.WriteFile(path, []byte("0"), 0o600)
	lines := filepath.Join(t.TempDir(), "lines")
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			lf, err := os.OpenFile(lines, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				t.Error(err)
				return
			}
			defer lf.Close()
			for i := range each {
				if err := Lock(f); err != nil {
					t.Error(err)
					return
				}
				b := make([]byte, 32)
				n, _ := f.ReadAt(b, 0)
				v, _ := strconv.Atoi(string(bytes.TrimSpace(b[:n])))
				f.Truncate(0)
				f.WriteAt([]byte(strconv.Itoa(v+1)), 0)
				Unlock(f)
				line := fmt.Sprintf("%d-%d %s\n", w, i, bytes.Repeat([]byte{'a' + byte(w)}, 64<<10))
				if err := Append(lf, []byte(line)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if b, _ := os.ReadFile(path); string(b) != strconv.Itoa(writers*each) {
		t.Errorf("counter %q, want %d", b, writers*each)
	}
	b, _ := os.ReadFile(lines)
	got := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(got) != writers*each {
		t.Fatalf("%d lines, want %d", len(got), writers*each)
	}
	for _, l := range got {
		var w, i int
		fmt.Sscanf(string(l), "%d-%d", &w, &i)
		if want := fmt.Sprintf("%d-%d %s", w, i, bytes.Repeat([]byte{'a' + byte(w)}, 64<<10)); string(l) != want {
			t.Fatalf("a torn or interleaved line: %.40q", l)
		}
	}
}
