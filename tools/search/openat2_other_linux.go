//go:build linux && !(amd64 || arm64 || riscv64 || loong64 || 386 || arm || ppc64 || ppc64le || s390x)

package search

// sysOpenat2 is unknown here: readers fall back to os.Root.
const sysOpenat2 = 0
