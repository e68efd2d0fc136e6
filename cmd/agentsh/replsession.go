package main

import "fmt"

// cmdSessions is :sessions.
func (s *replSession) cmdSessions(arg string) {
	fmt.Fprintln(s.a.io.err, ":sessions is not available yet")
}

// cmdResume is :resume ID.
func (s *replSession) cmdResume(arg string) { fmt.Fprintln(s.a.io.err, ":resume is not available yet") }
