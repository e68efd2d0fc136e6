package core_test

import (
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestSession(t *testing.T) {
	s := core.NewSession("s")
	if s.ID != "s" {
		t.Fatalf("ID %q", s.ID)
	}
	if _, ok := s.Get("x"); ok {
		t.Fatal("empty session has x")
	}
	s.Set("b", int64(1))
	s.Set("a", "v")
	if v, ok := s.Get("a"); !ok || v != "v" {
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	if got := s.Keys(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("Keys = %q, want sorted", got)
	}
	s.Delete("a")
	if _, ok := s.Get("a"); ok {
		t.Fatal("Delete did not delete")
	}
	var zero core.Session
	zero.Set("k", true)
	if v, _ := zero.Get("k"); v != true {
		t.Fatal("zero Session does not work")
	}
}

func TestSessionUpdateIsAtomic(t *testing.T) {
	s := core.NewSession("")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				s.Update("n", func(old any, ok bool) any {
					if !ok {
						return int64(1)
					}
					return old.(int64) + 1
				})
				s.Keys()
			}
		}()
	}
	wg.Wait()
	if v, _ := s.Get("n"); v != int64(4000) {
		t.Fatalf("counter = %v, want 4000", v)
	}
}
