//go:build !unix

package tools

import "os"

const (
	openReadFlags = os.O_RDONLY
	openDirFlags  = os.O_RDONLY
)
