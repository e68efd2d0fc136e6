//go:build linux && (amd64 || arm64 || riscv64 || loong64 || 386 || arm || ppc64 || ppc64le || s390x)

package search

// sysOpenat2 is the number of the openat2 system call (Linux 5.6).
const sysOpenat2 = 437
