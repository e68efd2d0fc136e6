//go:build unix

package tools

import (
	"os"
	"syscall"
)

// Reads open without blocking (a named pipe with no writer would block
// open forever) and never make a terminal the controlling one.
const (
	openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	openDirFlags  = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_DIRECTORY
)

// fileID identifies the file fi describes: its device and inode.
func fileID(fi os.FileInfo) (any, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
