package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentsh/agentsh/internal/testwait"
)

// Role is the superuser every cluster is made with; it needs no password
// from loopback (trust authentication).
const Role = "agentsh"

// startTries is how many free ports StartCluster tries before it gives up: a
// port found free may be taken by another process before the server
// binds it.
const startTries = 5

// logTail is how many lines of the server log a start failure quotes.
const logTail = 40

// A Cluster is a running PostgreSQL server with its own data directory,
// reachable on a loopback port as Role. Its methods are safe to call from
// concurrent goroutines.
type Cluster struct {
	dir, data, sock, logPath string
	port                     int
	as                       *runAs

	cmd     *exec.Cmd
	exited  chan struct{} // closed once the server has exited and been reaped
	waitErr error         // the server's exit status, once exited is closed

	stopOnce sync.Once
	stopErr  error
}

// StartCluster starts a cluster in dir, which it creates if needed: the
// data directory is dir/data, the server's log dir/postgres.log and its
// Unix socket in dir/sock. If dir/data already holds a cluster it is
// started as it is (a postmaster.pid left by a server that died is
// cleared by the server itself); otherwise initdb makes one. It returns
// once the server accepts connections, or an error quoting the end of
// the server log. The error wraps ErrUnavailable when this machine
// cannot run a cluster at all.
//
// When this process is root, the server runs as an unprivileged user
// (postgres, else nobody) that is given dir; every directory above dir
// must be searchable by that user.
//
// The kernel sends the server SIGQUIT when this process dies (a
// parent-death signal), so it does not outlive a test binary that ends
// without calling Stop, even one killed by a timeout; Stop is the orderly
// way. StartCluster leaves dir in place on Stop: it is the
// caller's. It is safe to call concurrently for different dirs.
func StartCluster(dir string) (*Cluster, error) {
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	as, err := pickUser()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		dir:     dir,
		data:    filepath.Join(dir, "data"),
		sock:    filepath.Join(dir, "sock"),
		logPath: filepath.Join(dir, "postgres.log"),
		as:      as,
	}
	for _, d := range []string{dir, c.sock} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		if err := as.own(d); err != nil {
			return nil, err
		}
	}
	if err := as.canReach(dir); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	// The server and initdb write through this descriptor, so the file
	// may stay ours.
	defer logf.Close()

	if _, err := os.Stat(filepath.Join(c.data, "PG_VERSION")); err != nil {
		initdb := c.command(filepath.Join(bin, "initdb"), logf,
			"-D", c.data, "-A", "trust", "-U", Role, "--no-sync", "-E", "UTF8", "--locale=C")
		if err := initdb.Run(); err != nil {
			return nil, c.failure(fmt.Sprintf("initdb in %s: %v", c.data, err))
		}
	}
	for try := 1; ; try++ {
		err := c.start(filepath.Join(bin, "postgres"), logf)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, errPortTaken) || try == startTries {
			return nil, err
		}
	}
}

// errPortTaken is a start that failed because another process bound the
// port between our choosing it and the server binding it.
var errPortTaken = errors.New("port taken")

// start runs the server on a free port and waits until it accepts
// connections.
func (c *Cluster) start(postgres string, logf *os.File) error {
	port, err := pickPort()
	if err != nil {
		return err
	}
	off, _ := logf.Seek(0, io.SeekEnd)
	c.port = port
	c.cmd = c.command(postgres, logf, "-D", c.data,
		"-c", "listen_addresses=127.0.0.1", "-c", "port="+strconv.Itoa(port), "-k", c.sock,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	// SIGQUIT is an immediate shutdown: the server stops its backends
	// and exits, as pg_ctl stop -m immediate would have it do.
	c.cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := startOnOwnThread(c.cmd); err != nil {
		return fmt.Errorf("start %s: %v", postgres, err)
	}
	c.exited = make(chan struct{})
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	err = c.waitReady()
	if err == nil {
		return nil
	}
	c.halt()
	if b, _ := os.ReadFile(c.logPath); int64(len(b)) > off && bytes.Contains(b[off:], []byte("Address already in use")) {
		return fmt.Errorf("%w: %d", errPortTaken, port)
	}
	return c.failure(err.Error())
}

// startOnOwnThread starts cmd from a new goroutine. The kernel sends the
// parent-death signal when the thread that forked the child exits, and Go
// ends a thread only when a goroutine locked to it returns; a caller's
// goroutine may be locked, a new one is not.
func startOnOwnThread(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() { errc <- cmd.Start() }()
	return <-errc
}

// waitReady polls with a growing pause until a real connection succeeds,
// the server exits, the server refuses Role for good (a data directory
// pgtest did not make), or testwait.Step passes.
func (c *Cluster) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Step)
	defer cancel()
	// A server that exits ends the wait at once, even in the middle of a
	// connection to whatever else holds its port and never answers.
	go func() {
		select {
		case <-c.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	pause := time.Millisecond
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		if err == nil {
			return nil
		}
		// 57P03 is cannot_connect_now: the server is starting up. Any
		// other answer from the server will not change by waiting.
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code != "57P03" {
			return fmt.Errorf("postgres on port %d refuses connections as %s: %v", c.port, Role, err)
		}
		select {
		case <-c.exited:
			return fmt.Errorf("postgres exited before accepting connections: %v", c.waitErr)
		default:
		}
		select {
		case <-c.exited:
			return fmt.Errorf("postgres exited before accepting connections: %v", c.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("postgres on port %d did not accept connections within %v: %v", c.port, testwait.Step, err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// command is a cluster program writing to the log, run as the cluster's
// user in the cluster's directory (the caller's may be closed to that
// user), with an environment of its own so that PGDATA, PGPORT and a
// locale the machine lacks do not leak in, and killed if this process
// dies first.
func (c *Cluster) command(path string, logf *os.File, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = c.dir
	cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as.credential(), Pdeathsig: syscall.SIGKILL}
	return cmd
}

// failure is a start error with the end of the server log.
func (c *Cluster) failure(what string) error {
	b, _ := os.ReadFile(c.logPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > logTail {
		lines = lines[len(lines)-logTail:]
	}
	return fmt.Errorf("postgres cluster in %s: %s\nlast lines of %s:\n%s", c.dir, what, c.logPath, strings.Join(lines, "\n"))
}

// pickPort is freePort but in the test of a port taken in between.
var pickPort = freePort

// freePort is a loopback port nothing listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection URL of database dbname as Role over loopback,
// with TLS off. It does not create the database.
func (c *Cluster) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(Role),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port is the loopback TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// DataDir is the cluster's data directory.
func (c *Cluster) DataDir() string { return c.data }

// PID is the process id of the server (the postmaster).
func (c *Cluster) PID() int { return c.cmd.Process.Pid }

// CreateDatabase creates the empty database name, owned by Role, and
// returns its URL. Any name PostgreSQL accepts (at most 63 bytes, no NUL)
// may be used; it is quoted, never spliced into SQL.
func (c *Cluster) CreateDatabase(name string) (string, error) {
	if name == "" || len(name) > 63 || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("database name %q: want 1 to 63 bytes and no NUL", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Step)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect to the cluster in %s to create database %q: %v", c.dir, name, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %q: %v", name, err)
	}
	return c.URL(name), nil
}

// Stop shuts the server down at once (SIGQUIT, an immediate shutdown
// that skips the checkpoint a throwaway cluster does not need), and kills
// it if it has not exited within a few seconds, scaled for the machine's
// load. It returns once the server has exited; after SIGQUIT the server
// has ended its backends first, after a kill (which Stop reports as an
// error) they end on their own as they notice. Commits of the last moment
// may be lost, as in a crash (synchronous_commit is off): the cluster is
// for throwing away. Later calls return the first call's result. It does
// not remove the cluster's directory.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Cluster) stop() error {
	select {
	case <-c.exited:
		return fmt.Errorf("postgres cluster in %s had already exited: %v", c.dir, c.waitErr)
	default:
	}
	if !c.halt() {
		return fmt.Errorf("postgres cluster in %s did not stop on SIGQUIT and was killed", c.dir)
	}
	return nil
}

// halt sends the server SIGQUIT and waits for it to exit; if it has not
// within a few seconds, scaled for the load, it kills it with SIGKILL and
// waits for that, within testwait.Step, and reports false. After a kill
// the backends end on their own as they notice the server is gone.
func (c *Cluster) halt() bool {
	c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
		return true
	case <-time.After(testwait.Bound(10 * time.Second)):
	}
	c.cmd.Process.Kill()
	select {
	case <-c.exited:
	case <-time.After(testwait.Step):
	}
	return false
}
