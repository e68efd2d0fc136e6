package durable_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/durable"
	"github.com/agentsh/agentsh/internal/pgtest"
	"github.com/agentsh/agentsh/internal/testwait"
)

// TestOpenNewPostgresTogether: engines that open a new Postgres database
// at the same time, as workers started together do, all open it; without
// taking turns, all but one failed creating its tables, and waiting for
// the turn in a statement hung them all.
func TestOpenNewPostgresTogether(t *testing.T) {
	url := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Step)
	defer cancel()
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			eng, err := durable.Open(ctx, durable.Config{DB: url})
			if err == nil {
				_, err = eng.Runs(ctx)
				eng.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("engine %d of %d: %v", i+1, n, err)
		}
	}
}
