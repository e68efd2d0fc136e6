package tunnels

import (
	"net"
	"sync/atomic"
	"testing"
)

// TestSet: Close ends the recorded connections and refuses new ones and
// new goroutines; Wait waits for the goroutines counted.
func TestSet(t *testing.T) {
	var s Set
	a, b := net.Pipe()
	if !s.Add(1, a, b) {
		t.Fatal("Add on an open set refused")
	}
	var ran atomic.Bool
	ended := make(chan struct{})
	go func() {
		defer s.Done()
		_, err := a.Read(make([]byte, 1)) // until Close closes a
		ran.Store(err != nil)
		close(ended)
	}()
	c, d := net.Pipe()
	if !s.Add(0, c, d) {
		t.Fatal("second Add refused")
	}
	s.Remove(c, d)
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("Remove left its connection open")
	}
	if !s.Close() {
		t.Fatal("first Close reported closed already")
	}
	s.Wait()
	<-ended
	if !ran.Load() {
		t.Error("a tracked connection stayed open after Close")
	}
	if s.Close() {
		t.Error("second Close reported open")
	}
	e, f := net.Pipe()
	defer e.Close()
	defer f.Close()
	if s.Add(1, e, f) {
		t.Error("Add on a closed set recorded")
	}
	if s.Go(func() { t.Error("Go ran after Close") }) {
		t.Error("Go on a closed set reported true")
	}
	s.Wait()
}
