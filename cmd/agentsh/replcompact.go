package main

import "fmt"

// cmdCompact is :compact.
func (s *replSession) cmdCompact(arg string) {
	fmt.Fprintln(s.a.io.err, ":compact is not available yet")
}
