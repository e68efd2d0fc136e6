package main

import (
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/internal/pgtest"
)

// TestDurableKillPostgres is the kill-point suite on Postgres: one
// throwaway cluster and one database for the suite, which every kill
// point's run shares under its own id, as processes sharing a database
// do. It skips where Postgres is not installed.
func TestDurableKillPostgres(t *testing.T) {
	t.Parallel()
	killSuite(t, killCluster(t))
}

// killCluster starts a cluster for t and returns what gives its
// database, made on the first call. (pgtest.Shared would need pgtest.Main in TestMain,
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
	var (
		once sync.Once
		url  string
		err2 error
	)
	return func(t *testing.T) string {
		once.Do(func() { url, err2 = c.CreateDatabase("kill") })
		if err2 != nil {
			t.Fatal(err2)
		}
		return url
	}
}
