package durable

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

var randRead = rand.Read

// dialect is how agentsh's own tables are reached in one kind of
// database. The statements are written once, with $1, $2, ... in order,
// which both SQLite and Postgres read.
type dialect interface {
	open(url string) (*sql.DB, error)
	// setupLock waits until no other process is creating the tables, and
	// returns what lets the next one go on.
	setupLock(ctx context.Context, url string) (unlock func())
}

type sqliteDialect struct{}

func (sqliteDialect) open(url string) (*sql.DB, error) {
	path := strings.TrimPrefix(url, "sqlite:")
	// As the engine's own connections: concurrent readers, and writers
	// wait for each other instead of failing.
	return sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
}

// A SQLite file's writers already wait for each other (busy_timeout).
func (sqliteDialect) setupLock(context.Context, string) func() { return func() {} }

type postgresDialect struct{}

func (postgresDialect) open(url string) (*sql.DB, error) { return sql.Open("pgx", url) }

// setupLockKey is the Postgres advisory lock the processes that set up a
// database take turns on.
const setupLockKey = 0x61676e7473680001

// setupLock holds a session-level advisory lock on a connection of its
// own. When the lock cannot be had (the database does not exist yet, and
// the engine creates it), setting up goes on without it: the engine's
// error, if any, is the one to report.
func (d postgresDialect) setupLock(ctx context.Context, url string) func() {
	db, err := d.open(url)
	if err != nil {
		return func() {}
	}
	conn, err := db.Conn(ctx)
	// Tried, not waited for: a statement waiting for the lock would hold
	// a snapshot, which the engine's CREATE INDEX CONCURRENTLY, under the
	// lock, waits for in turn.
	for got := false; err == nil && !got; {
		if err = conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, int64(setupLockKey)).Scan(&got); err == nil && !got {
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return func() {}
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(setupLockKey))
		conn.Close()
		db.Close()
	}
}

// migrate creates agentsh's tables on first use.
func (e *Engine) migrate(ctx context.Context) error {
	_, err := e.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS agentsh_approvals (
		id TEXT PRIMARY KEY,
		run TEXT NOT NULL,
		tool TEXT NOT NULL,
		args TEXT NOT NULL,
		reason TEXT NOT NULL,
		call_hash TEXT NOT NULL,
		policy_hash TEXT NOT NULL,
		created_ms BIGINT NOT NULL,
		expires_ms BIGINT NOT NULL,
		state TEXT NOT NULL,
		decided_reason TEXT NOT NULL DEFAULT '',
		decided_ms BIGINT NOT NULL DEFAULT 0,
		spent_by TEXT NOT NULL DEFAULT '',
		requeued INTEGER NOT NULL DEFAULT 0
	)`)
	if err == nil {
		_, err = e.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS agentsh_executors (
			id TEXT PRIMARY KEY,
			seen_ms BIGINT NOT NULL
		)`)
	}
	if err != nil {
		return fmt.Errorf("prepare the run database %s: %v", e.DB(), err)
	}
	return nil
}

// heartbeat says this process is alive.
func (e *Engine) heartbeat(ctx context.Context) error {
	_, err := e.db.ExecContext(ctx, `INSERT INTO agentsh_executors (id, seen_ms) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen_ms = excluded.seen_ms`,
		e.executor, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("write the heartbeat of this process to %s: %v", e.DB(), err)
	}
	return nil
}

// beating keeps the heartbeat going until Close; a process that cannot
// write it is taken for gone by the others, which is what it is to them.
func (e *Engine) beating() {
	t := time.NewTicker(e.cfg.StaleAfter / 5)
	defer t.Stop()
	defer close(e.beatDone)
	for {
		select {
		case <-e.beat:
			_, _ = e.db.Exec(`DELETE FROM agentsh_executors WHERE id = $1`, e.executor)
			return
		case <-t.C:
			_ = e.heartbeat(context.Background())
		}
	}
}

// alive reports whether the executor of a running workflow is alive by
// its heartbeat (fresh, from aliveExecutors), and on this machine also by
// its process: a process killed a moment ago has a fresh heartbeat.
func (e *Engine) alive(executor string, fresh map[string]bool) bool {
	if !fresh[executor] {
		return false
	}
	host, rest, ok := strings.Cut(executor, "|")
	if !ok || host != e.host {
		return true
	}
	pid, _, _ := strings.Cut(rest, "|")
	n, err := strconv.Atoi(pid)
	if err != nil {
		return true
	}
	return processAlive(n)
}

// aliveExecutors are the processes with a recent heartbeat, and this
// one, whatever its heartbeat says: a late write of its own must not
// put the runs it is executing back on the queue, to run twice at once.
func (e *Engine) aliveExecutors(ctx context.Context) (map[string]bool, error) {
	rows, err := e.db.QueryContext(ctx, `SELECT id FROM agentsh_executors WHERE seen_ms > $1`, time.Now().Add(-e.cfg.StaleAfter).UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("read the heartbeats in %s: %v", e.DB(), err)
	}
	defer rows.Close()
	alive := map[string]bool{e.executor: true}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		alive[id] = true
	}
	return alive, rows.Err()
}
