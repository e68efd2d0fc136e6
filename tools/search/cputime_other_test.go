//go:build !unix

package search

import "testing"

// reportCPU runs run: CPU time is not measured here.
func reportCPU(b *testing.B, run func()) { run() }
