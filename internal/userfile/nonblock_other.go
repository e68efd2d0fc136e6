//go:build !unix

package userfile

const nonBlock = 0
