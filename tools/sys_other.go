//go:build !unix

package tools

import "os"

const (
	openReadFlags = os.O_RDONLY
	openDirFlags  = os.O_RDONLY
)

// fileID: without inode numbers no file is told apart, so every write
// sweeps its directory.
func fileID(os.FileInfo) (any, bool) { return nil, false }
