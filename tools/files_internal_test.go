package tools

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTestExtension(t *testing.T) *Extension {
	t.Helper()
	x := NewExtension(ExtensionConfig{WorkingDir: t.TempDir()})
	if err := x.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// write_file refuses content over the limit and writes content of exactly
// the limit. (Called directly: through the pipeline, 64 MiB of JSON would
// cost seconds.)
func TestWriteFileSizeLimit(t *testing.T) {
	x := newTestExtension(t)
	over := strings.Repeat("x", maxReadBytes+1)
	_, err := x.writeFile(context.Background(), writeArgs{Path: "big", Content: &over})
	if err == nil || !strings.Contains(err.Error(), "write_file: content is 67108865 bytes, more than the limit of 67108864; nothing was written") {
		t.Errorf("write_file of limit+1 bytes: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(x.root, "big")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("big was written: %v", err)
	}
	exact := over[:maxReadBytes]
	if _, err := x.writeFile(context.Background(), writeArgs{Path: "exact", Content: &exact}); err != nil {
		t.Errorf("write_file of exactly the limit: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(x.root, "exact")); err != nil || fi.Size() != maxReadBytes {
		t.Errorf("exact: %v %v", fi, err)
	}
}

// endless is a reader that never ends, counting what it gives.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

// readCapped never reads more than limit+1 bytes, whatever the size said.
func TestReadCapped(t *testing.T) {
	for _, c := range []struct{ size, limit int64 }{{0, 1000}, {10, 1000}, {1000, 1000}, {0, 3 * readChunk}, {5, 0}} {
		r := &endless{}
		data, err := readCapped(context.Background(), r, "f", c.size, c.limit)
		var se *FileSizeError
		if !errors.As(err, &se) || se.Size != -1 || se.Limit != c.limit || data != nil {
			t.Errorf("size %d, limit %d: %v, %d bytes; want a FileSizeError that it grew", c.size, c.limit, err, len(data))
		}
		if r.n > c.limit+1 {
			t.Errorf("size %d, limit %d: read %d bytes, more than limit+1", c.size, c.limit, r.n)
		}
	}
	// A reader that ends within the limit is read whole, also when the
	// size said less.
	for _, c := range []struct {
		text        string
		size, limit int64
	}{{"", 0, 10}, {"abc", 3, 10}, {"abcdef", 2, 10}, {"0123456789", 0, 10}, {"ab", 100, 10}} {
		data, err := readCapped(context.Background(), strings.NewReader(c.text), "f", c.size, c.limit)
		if err != nil || string(data) != c.text {
			t.Errorf("%q (size %d, limit %d): %q, %v", c.text, c.size, c.limit, data, err)
		}
	}
	if _, err := readCapped(context.Background(), strings.NewReader("0123456789x"), "f", 0, 10); err == nil {
		t.Error("11 bytes through a limit of 10: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readCapped(ctx, io.LimitReader(&endless{}, 1<<20), "f", 1<<20, 1<<30); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
