// Package tunnels keeps a proxy's open tunnels and the goroutines that
// serve them, so that closing the proxy ends every tunnel and then waits
// for every goroutine. The sandbox's network proxy (tools/process) and the
// browser's policy proxy (tools/web) share it.
package tunnels

import (
	"net"
	"sync"
)

// Set is the tunnels of one proxy. It is safe for concurrent use; the
// zero value is ready.
type Set struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Add records conns and counts n goroutines, each of which calls Done.
// Once the set is closed it records and counts nothing and reports false.
func (s *Set) Add(n int, conns ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	for _, c := range conns {
		s.conns[c] = struct{}{}
	}
	s.wg.Add(n)
	return true
}

// Go runs f in a goroutine counted by the set; false, and f does not run,
// once the set is closed.
func (s *Set) Go(f func()) bool {
	if !s.Add(1) {
		return false
	}
	go func() {
		defer s.Done()
		f()
	}()
	return true
}

// Done ends a goroutine that Add or Go counted.
func (s *Set) Done() { s.wg.Done() }

// Remove closes conns and forgets them.
func (s *Set) Remove(conns ...net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(s.conns, c)
	}
}

// Close closes every connection recorded and refuses new ones. It reports
// false when the set was closed already.
func (s *Set) Close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	return true
}

// Wait waits for every goroutine counted to be done.
func (s *Set) Wait() { s.wg.Wait() }
