package durable

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite" // the embedded default
	_ "github.com/jackc/pgx/v5/stdlib"                              // database/sql for Postgres
)

// Runner executes one run inside its workflow: it composes the shell spec
// describes with j's steps in it (Journal.Executor, Journal.Provider,
// Journal.Clock, Journal.Approver), runs the script or the ask, writes what
// it prints to out, and returns its exit code and result event. Everything
// it does that is not a step must be the same on every execution of the
// run. It returns an error only when the journal itself failed (the run
// was parked, cancelled or taken over by another process); errors of the
// script belong in the Outcome.
type Runner func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error)

// Config configures an Engine.
type Config struct {
	// DB is the system database: "" for the SQLite file runs.db in
	// StateDir, "sqlite:PATH" for another SQLite file, or a Postgres URL
	// (postgres://user@host:port/db) to share runs between machines.
	DB string
	// StateDir holds the default SQLite file; "" is DefaultStateDir().
	StateDir string
	// Run executes runs; required to start or resume one.
	Run Runner
	// Log gets the database engine's warnings; nil discards them.
	Log io.Writer
	// PollInterval is how often a waiting process looks at the queue and
	// at a run it waits for; 0 is 20 ms.
	PollInterval time.Duration
	// StaleAfter is how long a process may go without a heartbeat before
	// the runs it was executing count as stopped and batch tasks go back
	// on the queue; 0 is 10 s. Processes beat every StaleAfter/5.
	StaleAfter time.Duration
	// Fault, when set, is called at each point of a step where a crash is
	// possible (before it, inside it before and after its work, after it
	// is journaled), with the step's name: fault-injection tests kill the
	// process there.
	Fault func(point, step string)
}

// DefaultStateDir is where the embedded database lives:
// $XDG_STATE_HOME/agentsh, or ~/.local/state/agentsh.
func DefaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory for durable runs: set XDG_STATE_HOME or HOME, or pass --db (%v)", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "agentsh"), nil
}

// Engine is a process's handle on the system database: it starts,
// resumes, lists and decides runs. Open one per process; it is safe for
// concurrent use.
type Engine struct {
	cfg     Config
	url     string // the DBOS URL
	dialect dialect
	dbos    dbos.Context
	db      *sql.DB // agentsh's own tables (approvals)

	executor  string // this process, to the database: host|pid|start
	host      string
	beat      chan struct{} // closed to stop the heartbeat
	beatDone  chan struct{} // closed when it stopped
	closeOnce sync.Once

	mu        sync.Mutex
	launched  bool
	sinks     map[string]io.Writer     // run id → where this process prints it
	stops     map[string]error         // run id → why this process parked it
	active    map[string]chan struct{} // run id → closed when this process's execution of it returns
	queues    map[string]dbos.Queue
	listening []string // the queues this process works
}

// appVersion names the journal's format: a process runs only the
// workflows of its own version, so it changes only when the format does.
const appVersion = "agentsh-journal-1"

// noQueue is a queue no one enqueues to: listening to it alone is
// working no queue.
const noQueue = "agentsh-none"

// workflowName is the name runs are registered under.
const workflowName = "agentsh.run"

// Open opens (creating on first use) the system database cfg names.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = 10 * time.Second
	}
	if cfg.Fault == nil {
		cfg.Fault = func(string, string) {}
	}
	url, dia, err := resolveDB(cfg.DB, cfg.StateDir)
	if err != nil {
		return nil, err
	}
	logOut := cfg.Log
	if logOut == nil {
		logOut = io.Discard
	}
	e := &Engine{cfg: cfg, url: url, dialect: dia, sinks: map[string]io.Writer{}, stops: map[string]error{}, active: map[string]chan struct{}{}, queues: map[string]dbos.Queue{}, beat: make(chan struct{}), beatDone: make(chan struct{})}
	e.host, _ = os.Hostname()
	e.executor = fmt.Sprintf("%s|%d|%d", e.host, os.Getpid(), time.Now().UnixNano())
	// Processes that open a new database at the same time (workers
	// started together) would create its tables at the same time, and
	// all but one fail; they take turns.
	unlock := dia.setupLock(ctx, url)
	defer unlock()
	dc, err := dbos.NewContext(ctx, dbos.Config{
		AppName:            "agentsh",
		DatabaseURL:        url,
		Logger:             slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
		ApplicationVersion: appVersion,
		// Each process is its own executor: a process that starts does
		// not take over the runs of others that are still going; a run is
		// taken over only by resuming it.
		ExecutorID: e.executor,
	})
	if err != nil {
		return nil, fmt.Errorf("open the run database %s: %v; check it, or pass --db (or set AGENTSH_DB) to use another", redactURL(cfg.DB, url), err)
	}
	e.dbos = dc
	dbos.RegisterWorkflow(dc, e.workflow, dbos.WithWorkflowName(workflowName))
	e.listenTo(noQueue)
	if e.db, err = dia.open(url); err != nil {
		dbos.Shutdown(dc, time.Second)
		return nil, fmt.Errorf("open the run database %s: %v", redactURL(cfg.DB, url), err)
	}
	if err := e.migrate(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close releases the database; runs this process is executing stop where
// they are, to be resumed.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		if e.isLaunched() {
			close(e.beat)
			<-e.beatDone
		}
		for name := range e.queues {
			if strings.HasPrefix(name, "agentsh-resume-") {
				_ = dbos.DeleteQueue(e.dbos, name) // this process's own
			}
		}
		dbos.Shutdown(e.dbos, 5*time.Second)
		if e.db != nil {
			err = e.db.Close()
		}
	})
	return err
}

// DB returns the database the engine uses, as it would be passed to --db
// (without a password).
func (e *Engine) DB() string { return redactURL(e.cfg.DB, e.url) }

// launch starts the engine's workers once: queued and resumed runs start
// from then on.
func (e *Engine) launch() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.launched {
		return nil
	}
	if err := e.heartbeat(context.Background()); err != nil {
		return err
	}
	if err := dbos.Launch(e.dbos); err != nil {
		return fmt.Errorf("start the run engine: %v", err)
	}
	e.launched = true
	go e.beating()
	return nil
}

func (e *Engine) isLaunched() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.launched
}

// resolveDB turns a --db value into a DBOS URL and the dialect of
// agentsh's own tables.
func resolveDB(db, stateDir string) (string, dialect, error) {
	switch {
	case db == "":
		if stateDir == "" {
			var err error
			if stateDir, err = DefaultStateDir(); err != nil {
				return "", nil, err
			}
		}
		if err := os.MkdirAll(stateDir, 0o700); err != nil {
			return "", nil, fmt.Errorf("create the state directory: %v; set XDG_STATE_HOME, or pass --db", err)
		}
		return "sqlite:" + filepath.Join(stateDir, "runs.db"), sqliteDialect{}, nil
	case strings.HasPrefix(db, "sqlite:"):
		path := strings.TrimPrefix(db, "sqlite:")
		if path == "" || path == ":memory:" {
			return "", nil, fmt.Errorf("--db %q: want sqlite:PATH, a file other processes can open", db)
		}
		if dir := filepath.Dir(path); dir != "" {
			if _, err := os.Stat(dir); err != nil {
				return "", nil, fmt.Errorf("--db %q: the directory of the file: %v; create it, or pass another --db (or set AGENTSH_DB)", db, err)
			}
		}
		return db, sqliteDialect{}, nil
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return db, postgresDialect{}, nil
	}
	return "", nil, fmt.Errorf("--db %q: want sqlite:PATH or postgres://user@host:port/db (or leave it out for the file under the state directory)", db)
}

// redactURL is a --db value without its password, for messages.
func redactURL(given, url string) string {
	s := given
	if s == "" {
		s = url
	}
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.LastIndex(s, "@"); at > i {
			if colon := strings.Index(s[i+3:at], ":"); colon >= 0 {
				return s[:i+3+colon] + ":***" + s[at:]
			}
		}
	}
	return s
}

// ErrNoRun is the error for a run id the database does not have.
var ErrNoRun = errors.New("no such run")

// Stopped is the error of a run this process stopped before its end and
// that a resume continues: it is waiting for an approval (Approval is
// set), or it would decide differently than its journal (Reason says how).
type Stopped struct {
	Run      string
	Approval *Approval
	Reason   string
}

func (s *Stopped) Error() string {
	if s.Approval != nil {
		a := s.Approval
		return fmt.Sprintf("run %s is waiting for approval %s: %s %s (%s); decide with agentsh approve %s or agentsh deny %s --reason R, then agentsh resume %s",
			s.Run, a.ID, a.Tool, a.Args, a.Reason, a.ID, a.ID, s.Run)
	}
	return fmt.Sprintf("run %s stopped: %s", s.Run, s.Reason)
}

// workflow is a run: the Runner, with the engine's output and stop
// handling around it.
func (e *Engine) workflow(ctx dbos.Context, spec Spec) (Outcome, error) {
	if e.cfg.Run == nil {
		return Outcome{}, errors.New("this process cannot execute runs (no Runner)")
	}
	returned := make(chan struct{})
	e.mu.Lock()
	e.active[spec.ID] = returned
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		if e.active[spec.ID] == returned {
			delete(e.active, spec.ID)
		}
		e.mu.Unlock()
		close(returned)
	}()
	j, err := newJournal(e, ctx, spec)
	if err != nil {
		return Outcome{}, err
	}
	var buf bytes.Buffer
	out := &stopWriter{j: j, w: &buf}
	e.mu.Lock()
	if sink := e.sinks[spec.ID]; sink != nil {
		out.w = io.MultiWriter(sink, &buf)
	}
	e.mu.Unlock()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	j.cancel = cancel
	o, err := e.cfg.Run(runCtx, j, spec, out)
	if stop := j.stopped(); stop != nil {
		// A batch task another execution took over ends there, and who
		// waits for it here waits for that one's outcome; a run this
		// process prints (Start, Resume) says it was taken over.
		e.mu.Lock()
		if !j.yielded() || e.sinks[spec.ID] != nil {
			e.stops[spec.ID] = stop
		}
		e.mu.Unlock()
		return Outcome{}, stop
	}
	if err != nil {
		return Outcome{}, err
	}
	o.Stdout = buf.String()
	return o, nil
}

// Writer returns w, except that what is written once the run has
// stopped (parked, or taken over by another process) is dropped: what the
// run would print after that is printed by the execution that goes on.
func (j *Journal) Writer(w io.Writer) io.Writer { return &stopWriter{j: j, w: w} }

// stopWriter is Journal.Writer.
type stopWriter struct {
	j *Journal
	w io.Writer
}

func (s *stopWriter) Write(p []byte) (int, error) {
	if s.j.stopped() != nil {
		return len(p), nil
	}
	return s.w.Write(p)
}

// Start executes a new run in this process, printing to out as it goes,
// and returns its outcome. A run stopped for an approval or a divergence
// returns *Stopped; a crash of the process leaves it for Resume.
func (e *Engine) Start(ctx context.Context, spec Spec, out io.Writer) (Outcome, error) {
	if spec.ID == "" {
		spec.ID = newRunID()
	}
	if err := CheckID(spec.ID); err != nil {
		return Outcome{}, err
	}
	if err := e.launch(); err != nil {
		return Outcome{}, err
	}
	e.watch(spec.ID, out)
	defer e.unwatch(spec.ID)
	h, err := dbos.RunWorkflow(e.dbos, e.workflow, spec, dbos.WithWorkflowID(spec.ID),
		dbos.WithWorkflowIDReusePolicy(dbos.WorkflowIDReusePolicyReject))
	if errors.Is(err, dbos.ErrWorkflowIDInUse) {
		return Outcome{}, fmt.Errorf("run id %s is taken; resume it with agentsh resume %s, or pick another --run-id", spec.ID, spec.ID)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("start run %s: %v", spec.ID, err)
	}
	return e.wait(ctx, spec.ID, h)
}

// ResumeOptions configure Resume.
type ResumeOptions struct {
	// Force resumes a run whose script changed since it started (the
	// journal still holds it to the decisions it made), or whose process
	// still beats its heartbeat.
	Force bool
}

// Resume continues run id in this process: after a crash, a kill or a
// parked approval. It prints the run's output from its start to out, as
// the run would have printed it unbroken, and returns its outcome; a run
// that had already ended prints its output again.
func (e *Engine) Resume(ctx context.Context, id string, out io.Writer, opts ResumeOptions) (Outcome, error) {
	info, err := e.Run(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if info.Spec.Script != "" && !opts.Force {
		now, err := HashFile(info.Spec.Script)
		if err != nil {
			return Outcome{}, fmt.Errorf("resume %s: read its script: %v", id, err)
		}
		if now != info.Spec.ScriptHash {
			return Outcome{}, fmt.Errorf("resume %s: %s changed since the run started (sha256 was %s, is %s); restore it, or pass --force to resume with the new script (calls it decides differently stop the run)",
				id, info.Spec.Script, info.Spec.ScriptHash, now)
		}
	}
	if info.Ended() {
		fmt.Fprint(out, info.Outcome.Stdout)
		return *info.Outcome, nil
	}
	if info.State == StateRunning && !opts.Force {
		return Outcome{}, fmt.Errorf("resume %s: it is running in another process (%s), which beats its heartbeat; wait for it, or pass --force if that process is gone", id, info.executor)
	}
	e.watch(id, out)
	defer e.unwatch(id)
	// The run goes on a queue only this process works, so that no other
	// process waiting for a run of its own takes it; resumed before the
	// engine's workers start, it is the first thing they pick up.
	q, err := e.resumeQueue()
	if err != nil {
		return Outcome{}, err
	}
	h, err := dbos.ResumeWorkflow[Outcome](e.dbos, id, dbos.WithResumeQueue(q))
	if err != nil {
		return Outcome{}, fmt.Errorf("resume %s: %v", id, err)
	}
	if err := e.launch(); err != nil {
		return Outcome{}, err
	}
	return e.wait(ctx, id, h)
}

// resumeQueue registers this process's own queue, once, and listens to
// it.
func (e *Engine) resumeQueue() (string, error) {
	name := "agentsh-resume-" + HashBytes([]byte(e.executor))[:16]
	e.mu.Lock()
	_, ok := e.queues[name]
	e.mu.Unlock()
	if ok {
		return name, nil
	}
	q, err := dbos.RegisterQueue(e.dbos, name, dbos.WithQueueBasePollingInterval(e.cfg.PollInterval))
	if err != nil {
		return "", fmt.Errorf("register this process's queue: %v", err)
	}
	e.mu.Lock()
	e.queues[name] = q
	e.mu.Unlock()
	e.listenTo(name)
	return name, nil
}

// listenTo adds queues to those this process works. Until it is told
// one, it works none: a process starting or resuming a run of its own
// must not take batch tasks or other processes' resumes.
func (e *Engine) listenTo(names ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.listening = append(e.listening, names...)
	dbos.ListenQueues(e.dbos, e.listening...)
}

// wait waits for run id to end or stop.
func (e *Engine) wait(ctx context.Context, id string, h dbos.WorkflowHandle[Outcome]) (Outcome, error) {
	return e.waitTicking(ctx, id, h, nil)
}

// waitTicking waits for run id to end or stop, calling tick every two
// seconds meanwhile; an error of tick ends the wait.
func (e *Engine) waitTicking(ctx context.Context, id string, h dbos.WorkflowHandle[Outcome], tick func() error) (Outcome, error) {
	type res struct {
		o   Outcome
		err error
	}
	done := make(chan res, 1)
	go func() {
		o, err := h.GetResult(dbos.WithHandlePollingInterval(e.cfg.PollInterval))
		done <- res{o, err}
	}()
	var ticks <-chan time.Time
	if tick != nil {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		ticks = t.C
	}
	// A run this process stopped ends the wait even when the database
	// cannot record that it stopped (a full disk): its status would not
	// change, and GetResult would wait for ever.
	stopped := time.NewTicker(e.cfg.PollInterval)
	defer stopped.Stop()
	var r res
	for waiting := true; waiting; {
		select {
		case r = <-done:
			waiting = false
		case <-stopped.C:
			waiting = e.parkedHere(id) == nil
		case <-ticks:
			if err := tick(); err != nil {
				return Outcome{}, err
			}
		case <-ctx.Done():
			return Outcome{}, fmt.Errorf("run %s: %w; it stays in the database: agentsh resume %s goes on", id, context.Cause(ctx), id)
		}
	}
	if errors.Is(r.err, dbos.ErrAwaitedWorkflowCancelled) || errors.Is(r.err, dbos.ErrWorkflowCancelled) {
		// A run that parks cancels its workflow before its execution
		// returns; a handle that polls the database (a resumed run's)
		// can see the cancellation first. Why it stopped is known once
		// the execution in this process has returned.
		e.mu.Lock()
		returned := e.active[id]
		e.mu.Unlock()
		if returned != nil {
			select {
			case <-returned:
			case <-ctx.Done():
			}
		}
	}
	e.mu.Lock()
	stop := e.stops[id]
	delete(e.stops, id)
	e.mu.Unlock()
	if stop != nil {
		return Outcome{}, stop
	}
	if errors.Is(r.err, dbos.ErrAwaitedWorkflowCancelled) {
		// Stopped by another process: one that resumed the run (and goes
		// on with it), parked it, or found it diverging.
		return Outcome{}, fmt.Errorf("run %s was stopped by another process that resumed it; agentsh runs shows where it is, agentsh resume %s goes on", id, id)
	}
	if r.err != nil {
		return Outcome{}, fmt.Errorf("run %s: %v", id, r.err)
	}
	return r.o, nil
}

func (e *Engine) watch(id string, out io.Writer) {
	if out == nil {
		return
	}
	e.mu.Lock()
	e.sinks[id] = out
	e.mu.Unlock()
}

func (e *Engine) unwatch(id string) {
	e.mu.Lock()
	delete(e.sinks, id)
	e.mu.Unlock()
}

// newRunID names a run: the time it started and a random suffix.
func newRunID() string {
	var b [4]byte
	_, _ = randRead(b[:])
	return fmt.Sprintf("run-%s-%x", time.Now().UTC().Format("20060102-150405"), b)
}
