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
	f, err := Open(path, os.O_RDONLY, FollowLinks)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: info.Size(), Limit: limit}
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

// Links says whether Open follows a symbolic link at the path itself.
type Links bool

const (
	// FollowLinks opens what a link points to, as a person naming a file
	// expects.
	FollowLinks Links = true
	// RefuseLinks refuses a link (a *NotRegularError): for a file that
	// the program itself keeps and appends to, where a link put in its
	// place would send the writes elsewhere.
	RefuseLinks Links = false
)

// Open opens the regular file at path with flag (os.O_RDONLY, os.O_RDWR,
// ...; not os.O_CREATE), refusing at once, with a *NotRegularError, what
// is not a regular file. It never blocks on a FIFO, also one that takes
// the place of the file while it is opened.
func Open(path string, flag int, links Links) (*os.File, error) {
	look, extra := os.Stat, nonBlock
	if links == RefuseLinks {
		look, extra = os.Lstat, nonBlock|noFollow
	}
	before, err := look(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open" // the look before the open is the open, to the person
		}
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: before.Mode()}
	}
	// Non-blocking: should a FIFO replace the file before the open, the
	// open returns instead of waiting for a writer, and the look at what
	// was opened refuses it.
	f, err := os.OpenFile(path, flag|extra, 0)
	if err != nil {
		return nil, err
	}
	now, err := f.Stat()
	if err == nil && !now.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Mode: now.Mode()}
	}
	if err == nil && links == RefuseLinks && !os.SameFile(before, now) {
		err = &NotRegularError{Path: path, Mode: fs.ModeSymlink} // replaced meanwhile
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// NotRegularError is the error of a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error says what the path is: "PATH is a named pipe, not a regular
// file".
func (e *NotRegularError) Error() string {
	return e.Path + " is " + Kind(e.Mode) + ", not a regular file"
}

// Kind names the type of file mode m, for messages: "a regular file",
// "a directory", "a named pipe", "a character device", ...
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
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
