// Package pgtest starts throwaway PostgreSQL clusters for tests: each a
// server of its own on a loopback port, with its data in a temporary
// directory, tuned for speed over durability (no fsync), gone when the
// test is.
//
// Start gives a test a cluster of its own; Shared gives it a database of
// its own in one cluster the whole test binary shares, which is much
// cheaper (a database is a copy of a template; a cluster is an initdb and
// a server start); a package that uses Shared calls Main from its
// TestMain, which stops that cluster after the tests. StartCluster is the
// same without a testing.TB, for a TestMain or a benchmark program.
//
// The server programs (initdb, postgres) are taken from PATH, else from
// the highest version under /usr/lib/postgresql/*/bin, where Debian's
// postgresql package puts them. Without them, Start and Shared skip the
// test. The server refuses to run as root; a root process runs it as the
// user postgres (else nobody) through setuid.
//
// No server outlives its test binary: each is started with a
// parent-death signal, so even a binary killed by a timeout takes its
// servers with it.
package pgtest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ErrUnavailable is wrapped by the errors of StartCluster when this
// machine cannot run a cluster at all: the server programs are not
// installed, or the process is root and there is no unprivileged user to
// run the server as. Start and Shared skip the test then.
var ErrUnavailable = errors.New("postgres is not available")

// Start starts a cluster of its own for t and returns the URL of its
// empty database agentsh, owned by Role. The cluster is stopped and its
// directory removed when t ends. It skips t when this machine cannot run
// a cluster (ErrUnavailable) and fails it on any other error. It is safe
// to call from parallel tests; each call gets its own cluster.
func Start(t testing.TB) string {
	t.Helper()
	c := startTemp(t)
	u, err := c.CreateDatabase("agentsh")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// startTemp starts a cluster in a new temporary directory that t's
// cleanup stops and removes. The directory is under os.TempDir, not
// t.TempDir: the server's user must be able to reach it, and t.TempDir's
// parent is private to this process's user.
func startTemp(t testing.TB) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := StartCluster(dir)
	if errors.Is(err, ErrUnavailable) {
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
	return c
}

// shared is the one cluster of this test binary, started by the first
// call of Shared and stopped by Main.
var shared struct {
	once    sync.Once
	dir     string
	cluster *Cluster
	err     error
	dbs     atomic.Int64
}

// inMain is set while Main runs the tests, so that Shared can refuse to
// start a cluster that nothing would stop.
var inMain atomic.Bool

// Shared returns the URL of a new empty database, owned by Role, in the
// cluster this test binary shares, starting the cluster on first use. The
// package's TestMain must call Main, which stops the cluster and removes
// its directory after the tests; Shared fails t otherwise. It skips t
// when this machine cannot run a cluster (ErrUnavailable). It is safe to
// call from parallel tests; each call gets its own database, which is
// not dropped (the cluster goes as a whole).
func Shared(t testing.TB) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatal("pgtest.Shared needs the package's TestMain to call pgtest.Main(m), which stops the shared cluster; use pgtest.Start for a cluster of the test's own")
	}
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "pgtest-shared-")
		if shared.err == nil {
			shared.cluster, shared.err = StartCluster(shared.dir)
		}
	})
	if errors.Is(shared.err, ErrUnavailable) {
		t.Skip(shared.err)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	name := fmt.Sprintf("t%d_%s", shared.dbs.Add(1), dbSafe(t.Name()))
	u, err := shared.cluster.CreateDatabase(name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// dbSafe is a test name made short and plain enough to read in a
// database name; the number before it keeps names distinct.
func dbSafe(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 40)])
}

// Main runs the tests of m, stops the shared cluster if Shared started
// one, removes its directory, and exits with the tests' status. Call it
// from TestMain in a package that uses Shared:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	inMain.Store(true)
	code := m.Run()
	inMain.Store(false)
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			code = max(code, 1)
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}
