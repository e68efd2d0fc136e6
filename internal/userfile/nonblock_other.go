//go:build !unix

package userfile

const (
	nonBlock = 0
	noFollow = 0 // Open's look at what it opened refuses a link there
)
