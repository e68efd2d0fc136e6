package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/agentsh/agentsh/internal/proctest"
	"github.com/agentsh/agentsh/internal/testwait"
)

func TestMain(m *testing.M) { Main(m) }

// connect opens u, closed when t ends.
func connect(t *testing.T, u string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect to %s: %v", u, err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// writeRead stores v in a new table of u's database and reads it back.
func writeRead(t *testing.T, u, v string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, u)
	if _, err := conn.Exec(ctx, "CREATE TABLE kv (v text)"); err != nil {
		t.Fatalf("create table in %s: %v", u, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO kv VALUES ($1)", v); err != nil {
		t.Fatalf("insert into %s: %v", u, err)
	}
	var got string
	if err := conn.QueryRow(ctx, "SELECT v FROM kv").Scan(&got); err != nil {
		t.Fatalf("select from %s: %v", u, err)
	}
	if got != v {
		t.Fatalf("read %q back from %s, want %q", got, u, v)
	}
}

// procsIn are the live processes whose working directory is dir: a
// server and every backend it forks run in their data directory.
func procsIn(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// serverOn finds the server of URL u by its command line: the one
// postgres process with -c port=PORT, and its -D directory.
func serverOn(t *testing.T, u string) (pid int, data string) {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if !slices.Contains(args, "port="+parsed.Port()) {
			continue
		}
		if i := slices.Index(args, "-D"); i >= 0 && i+1 < len(args) {
			if pid != 0 {
				t.Fatalf("two servers on port %s: %d and %d", parsed.Port(), pid, p)
			}
			pid, data = p, args[i+1]
		}
	}
	if pid == 0 {
		t.Fatalf("no server process with port=%s", parsed.Port())
	}
	return pid, data
}

func TestStartGivesAnEmptyDatabaseOfItsOwn(t *testing.T) {
	t.Parallel()
	var u, data string
	var server int
	t.Run("in use", func(t *testing.T) {
		u = Start(t)
		server, data = serverOn(t, u)
		if !strings.HasPrefix(u, "postgres://agentsh@127.0.0.1:") || !strings.HasSuffix(u, "/agentsh?sslmode=disable") {
			t.Errorf("Start = %q, want postgres://agentsh@127.0.0.1:PORT/agentsh?sslmode=disable", u)
		}
		var db, role string
		var tables int
		conn := connect(t, u)
		err := conn.QueryRow(context.Background(),
			"SELECT current_database(), current_user, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&db, &role, &tables)
		if err != nil {
			t.Fatal(err)
		}
		if db != "agentsh" || role != Role || tables != 0 {
			t.Errorf("connected to database %q as %q with %d tables, want agentsh as %s with none", db, role, tables, Role)
		}
		writeRead(t, u, "hello")
	})
	if t.Failed() || t.Skipped() || u == "" {
		return
	}
	// The test that called Start has ended, and its server with it.
	if proctest.Alive(server) {
		t.Errorf("server %d of %s (data in %s) still runs after the test that started it ended", server, u, data)
	}
	if _, err := os.Stat(filepath.Dir(data)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory of %s after the test that started it ended: %v, want it removed", u, err)
	}
}

// tempDir is a new directory under os.TempDir, removed when t ends; the
// server's user can reach it, unlike t.TempDir.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgtest-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startIn starts a cluster in dir, stopped when t ends.
func startIn(t testing.TB, dir string) *Cluster {
	t.Helper()
	c, err := StartCluster(dir)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

func TestClustersRunSideBySide(t *testing.T) {
	t.Parallel()
	dirs := []string{tempDir(t), tempDir(t)}
	type result struct {
		c   *Cluster
		err error
	}
	results := make(chan result, len(dirs))
	for _, dir := range dirs {
		go func() {
			c, err := StartCluster(dir)
			results <- result{c, err}
		}()
	}
	var cs []*Cluster
	var errs []error
	for range dirs {
		r := <-results
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		t.Cleanup(func() { r.c.Stop() })
		cs = append(cs, r.c)
	}
	for _, err := range errs {
		if errors.Is(err, ErrUnavailable) {
			t.Skip(err)
		}
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	if cs[0].Port() == cs[1].Port() {
		t.Fatalf("both clusters on port %d", cs[0].Port())
	}
	for i, c := range cs {
		u, err := c.CreateDatabase("agentsh")
		if err != nil {
			t.Fatal(err)
		}
		writeRead(t, u, fmt.Sprint("cluster ", i))
	}
}

// TestTakenPortIsRetried is not parallel: it swaps pickPort, which the
// parallel tests use once it is done.
func TestTakenPortIsRetried(t *testing.T) {
	if _, err := findBinDir(); err != nil {
		t.Skip(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	picks := 0
	pickPort = func() (int, error) {
		picks++
		if picks == 1 {
			return port, nil
		}
		return freePort()
	}
	defer func() { pickPort = freePort }()
	dir := tempDir(t)
	c := startIn(t, dir)
	if picks != 2 || c.Port() == port {
		t.Errorf("started on port %d after %d picks, want a second pick after %d was taken", c.Port(), picks, port)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
	if !strings.Contains(string(log), "Address already in use") {
		t.Errorf("the server log does not show the first try failing to bind %d:\n%s", port, log)
	}
	writeRead(t, c.URL("postgres"), "second port")
}

func TestStalePostmasterPidIsCleared(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	c := startIn(t, dir)
	u, err := c.CreateDatabase("kept")
	if err != nil {
		t.Fatal(err)
	}
	writeRead(t, u, "before")
	// Stop is immediate and commits are not waited for; a checkpoint
	// makes the row outlast it.
	if _, err := connect(t, u).Exec(context.Background(), "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(c.DataDir(), "postmaster.pid")
	stale, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	// The lock file as a server that died would leave it: its pid is
	// that of the stopped server, reaped and gone.
	if err := os.WriteFile(pidFile, stale, 0o600); err != nil {
		t.Fatal(err)
	}
	if c.as != nil {
		if err := c.as.own(pidFile); err != nil {
			t.Fatal(err)
		}
	}
	again := startIn(t, dir)
	var got string
	err = connect(t, again.URL("kept")).QueryRow(context.Background(), "SELECT v FROM kv").Scan(&got)
	if err != nil || got != "before" {
		t.Fatalf("after a restart over a stale postmaster.pid, kept has %q (%v), want the row written before", got, err)
	}
}

func TestLiveServerInTheDataDirIsAClearError(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	c := startIn(t, dir)
	second, err := StartCluster(dir)
	if err == nil {
		second.Stop()
		t.Fatalf("a second server started in %s, which one already runs in", c.DataDir())
	}
	for _, want := range []string{dir, `lock file "postmaster.pid" already exists`, "last lines of " + filepath.Join(dir, "postgres.log")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("second start in %s: %v\nwant it to say %q", dir, err, want)
		}
	}
	u, err := c.CreateDatabase("still")
	if err != nil {
		t.Fatalf("the first server after a second start failed: %v", err)
	}
	writeRead(t, u, "still here")
}

func TestBrokenDataDirQuotesTheLog(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	data := filepath.Join(dir, "data")
	// A data directory in name only: the server reads PG_VERSION and
	// finds nothing else it needs.
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "PG_VERSION"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if as, err := pickUser(); err == nil && as != nil {
		as.own(data)
		as.own(filepath.Join(data, "PG_VERSION"))
	}
	c, err := StartCluster(dir)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err == nil {
		c.Stop()
		t.Fatalf("a server started on the broken data directory %s", data)
	}
	for _, want := range []string{"postgres exited before accepting connections", "last lines of ", "could not access the server configuration file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start on a broken data directory: %v\nwant it to say %q", err, want)
		}
	}
	if left := procsIn(data); len(left) > 0 {
		t.Errorf("processes %v still run in %s after the failed start", left, data)
	}
}

func TestRefusedRoleIsAClearError(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	c := startIn(t, dir)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	// A data directory that lets no one in over TCP, as one made for
	// other uses might.
	hba := filepath.Join(c.DataDir(), "pg_hba.conf")
	if err := os.WriteFile(hba, []byte("host all all 127.0.0.1/32 reject\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := StartCluster(dir)
	if err == nil {
		t.Fatalf("StartCluster over %s, which rejects every connection, succeeded", hba)
	}
	for _, want := range []string{"refuses connections as " + Role, "pg_hba.conf rejects connection", "last lines of "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start over a data directory that rejects %s: %v\nwant it to say %q", Role, err, want)
		}
	}
	if left := procsIn(c.DataDir()); len(left) > 0 {
		t.Errorf("processes %v still run in %s after the refused start", left, c.DataDir())
	}
}

func TestUnreachableDirIsAClearError(t *testing.T) {
	t.Parallel()
	as, err := pickUser()
	if err != nil {
		t.Skip(err)
	}
	if as == nil {
		t.Skip("not root: the server runs as this user, who reaches every directory it made")
	}
	// t.TempDir's parent is private to root.
	dir := filepath.Join(t.TempDir(), "cluster")
	_, err = StartCluster(dir)
	if err == nil || !strings.Contains(err.Error(), "cannot reach "+dir) || !strings.Contains(err.Error(), os.TempDir()) {
		t.Fatalf("StartCluster(%s) under a private directory: %v, want an error saying %s cannot reach it and where to put it", dir, err, as.name)
	}
}

func TestCreateDatabaseTakesAnyNameAsData(t *testing.T) {
	t.Parallel()
	u := Shared(t)
	c := shared.cluster
	name := `it's "odd"; DROP DATABASE postgres; --`
	odd, err := c.CreateDatabase(name)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := connect(t, odd).QueryRow(context.Background(), "SELECT current_database()").Scan(&got); err != nil || got != name {
		t.Fatalf("connected through %s to database %q (%v), want %q", odd, got, err, name)
	}
	var n int
	if err := connect(t, u).QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = 'postgres'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("database postgres: %d rows (%v) after creating %q, want 1", n, err, name)
	}
	for _, bad := range []string{"", strings.Repeat("x", 64), "nul\x00"} {
		if _, err := c.CreateDatabase(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("CreateDatabase(%q): %v, want an error naming it", bad, err)
		}
	}
}

// helperDirEnv names, in the environment of this test binary run as a
// child, the directory to start a cluster in before it waits to be killed.
const helperDirEnv = "PGTEST_HELPER_DIR"

func TestHelperStartsAndWaits(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("run as a child by TestServerDiesWithItsTestBinary")
	}
	c, err := StartCluster(dir)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ready", c.PID(), c.DataDir())
	select {}
}

func TestServerDiesWithItsTestBinary(t *testing.T) {
	t.Parallel()
	if _, err := findBinDir(); err != nil {
		t.Skip(err)
	}
	dir := tempDir(t)
	// The server, orphaned when the child dies, comes to this process
	// rather than to init, which may never reap it; this test reaps it.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("become a subreaper: %v", err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestHelperStartsAndWaits$")
	child.Env = append(os.Environ(), helperDirEnv+"="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var line string
	testwait.Within(t, "the child test binary starting a cluster", func() {
		line, _ = bufio.NewReader(out).ReadString('\n')
	})
	var pid int
	var data string
	if n, _ := fmt.Sscanf(line, "ready %d %s", &pid, &data); n != 2 {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("child test binary said %q, want ready PID DATADIR", line)
	}
	if len(procsIn(data)) == 0 {
		t.Fatalf("the child said ready, but no process runs in %s", data)
	}
	// SIGKILL: no cleanup of the child's runs; only the kernel's
	// parent-death signal reaches the server.
	child.Process.Kill()
	child.Wait()
	testwait.Within(t, "the orphaned server to exit", func() {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
			t.Errorf("wait for the orphaned server %d: %v", pid, err)
		}
	})
	testwait.Until(t, "the server and its backends to exit after their test binary was killed", func() bool {
		return len(procsIn(data)) == 0
	})
}
