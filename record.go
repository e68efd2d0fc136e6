package agentsh

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentsh/agentsh/internal/userfile"
)

// recordFile is Config.RecordFile. It is created (or emptied) at the
// first exchange it records, so a run that fails before it reaches the
// model leaves an existing recording as it was. An error opening it is
// the error of that exchange, and of every later one.
type recordFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

// openRecord finds at start what would keep path from being written,
// short of creating it (which would empty a recording kept there): a
// directory that does not exist, or a path that is not a regular file.
func openRecord(path string) (*recordFile, error) {
	fail := func(format string, args ...any) error {
		return &OptionError{Option: "WithRecordFile", Value: path, Err: fmt.Errorf(format, args...)}
	}
	dir := filepath.Dir(path)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail("the directory %s does not exist; create it, or give a file in another", dir)
	case err != nil:
		return nil, fail("%v; give a file in a directory that can be written", err)
	case !fi.IsDir():
		return nil, fail("%s is %s, not a directory; give a file in a directory", dir, userfile.Kind(fi.Mode()))
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fail("it is %s, not a regular file; give the path of a file to write", userfile.Kind(fi.Mode()))
	}
	return &recordFile{path: path}, nil
}

func (r *recordFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil && r.err == nil {
		r.f, r.err = os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if r.err != nil {
			r.err = fmt.Errorf("the record file %s: %w; give a file that can be written", r.path, errors.Unwrap(r.err))
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.f.Write(p)
}

// Close closes the file if an exchange opened it.
func (r *recordFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
