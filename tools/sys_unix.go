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
