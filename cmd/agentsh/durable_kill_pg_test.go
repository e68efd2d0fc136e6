//go:build pgtest

// The build line above keeps this file out until internal/pgtest is in
// the module: delete it then, and the suite runs on Postgres too.

package main

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/internal/pgtest"
)

// The kill-point suite on Postgres: one throwaway cluster for the suite,
// a new database in it for each kill point.
func init() { killPostgres = killCluster }

func killCluster(t *testing.T) func(t *testing.T) string {
	// Not t.TempDir: the server runs as another user when this is root,
	// and t.TempDir's parent is private (see pgtest.Start).
	dir, err := os.MkdirTemp("", "agentsh-kill-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := pgtest.StartCluster(dir)
	if errors.Is(err, pgtest.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	var n atomic.Int64
	return func(t *testing.T) string {
		u, err := c.CreateDatabase(fmt.Sprintf("kill%d", n.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
}
