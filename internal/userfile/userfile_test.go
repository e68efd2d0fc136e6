package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 8); err != nil || string(b) != `{"a": 1}` {
		t.Errorf("Read(small, 8) = %q, %v; want its 8 bytes", b, err)
	}
	_, err := Read(small, 7)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != small+" is 8 bytes, larger than the limit of 7 bytes" {
		t.Errorf("Read(small, 7) = %v; want it refused as too large", err)
	}
	_, err = Read(dir, 1<<20)
	var nr *NotRegularError
	if !errors.As(err, &nr) || err.Error() != dir+" is a directory, not a regular file" {
		t.Errorf("Read(dir) = %v; want it refused as a directory", err)
	}
	_, err = Read(filepath.Join(dir, "missing.json"), 1<<20)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "open ") {
		t.Errorf("Read(missing) = %v; want the open error", err)
	}
}
