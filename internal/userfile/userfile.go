// Package userfile reads the small files a person names on the command
// line, such as a price table or a schema: only a regular file, and only
// up to a size limit. A FIFO, which would wait for a writer, a device
// such as /dev/zero, which never ends, a directory and a file too large
// are refused at once, with an error that says which it is.
package userfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read returns the contents of the regular file at path, which must hold
// at most limit bytes. A path that is not a regular file is a
// *NotRegularError, a larger file a *TooLargeError; the other errors are
// those of package os (a *fs.PathError). Read never blocks on a special
// file that takes the place of a regular one while it is opened.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open" // the look before the open is the open, to the person
		}
		return nil, err
	}
	if err := check(path, info, limit); err != nil {
		return nil, err
	}
	// Non-blocking: should a FIFO replace the file before the open, the
	// open returns instead of waiting for a writer, and the check of what
	// was opened refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(path, info, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit} // it grew
	}
	return data, nil
}

func check(path string, info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if info.Size() > limit {
		return &TooLargeError{Path: path, Size: info.Size(), Limit: limit}
	}
	return nil
}

// NotRegularError is the error of a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error says what the path is: "PATH is a named pipe (FIFO), not a
// regular file".
func (e *NotRegularError) Error() string {
	return e.Path + " is " + Kind(e.Mode) + ", not a regular file"
}

// Kind names the type of file mode m: "a directory", "a named pipe
// (FIFO)", "a device", ...
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t == 0:
		return "a regular file"
	}
	return "a special file"
}

// TooLargeError is the error of a file larger than the limit.
type TooLargeError struct {
	Path string
	// Size is the file's size in bytes, or -1 when it grew past the
	// limit while it was read.
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s is larger than the limit of %d bytes", e.Path, e.Limit)
	}
	return fmt.Sprintf("%s is %d bytes, larger than the limit of %d bytes", e.Path, e.Size, e.Limit)
}
