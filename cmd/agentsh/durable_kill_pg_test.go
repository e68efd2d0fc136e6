package main

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/internal/pgtest"
)

// TestDurableKillPostgres is the kill-point suite on Postgres: one
// throwaway cluster for the suite, a new database in it for each kill
// point. It skips where Postgres is not installed.
func TestDurableKillPostgres(t *testing.T) {
	t.Parallel()
	killSuite(t, killCluster(t))
}

// killCluster starts a cluster for t and returns what makes a new
// database in it. (pgtest.Shared would need pgtest.Main in TestMain,
// where testscript.Main is.)
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
