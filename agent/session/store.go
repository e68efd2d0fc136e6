package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/userfile"
	"github.com/agentsh/agentsh/provider"
)

const fileExt = ".jsonl"

// DefaultDir is where sessions are saved: $XDG_STATE_HOME/agentsh/sessions,
// or ~/.local/state/agentsh/sessions.
func DefaultDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory for sessions: set XDG_STATE_HOME or HOME (%v)", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "agentsh", "sessions"), nil
}

// NewID returns a new session id: the time (UTC) and six random hex
// digits, such as 20261201T192201-3f9a1c, so that ids sort by creation.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// CheckID accepts a session id or name: 1 to 128 letters, digits, '.',
// '_' and '-', not starting with '.', so that it is a safe file name, nor
// with '-', so that a flag given where the name was due ("--session
// --json") is not taken for one.
func CheckID(id string) error {
	ok := id != "" && len(id) <= 128 && id[0] != '.' && id[0] != '-'
	for _, r := range id {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("session id %q: want 1 to 128 letters, digits, '.', '_' or '-' that do not start with '.' or '-'", id)
	}
	return nil
}

// Store is a directory of sessions. Its zero value saves under
// DefaultDir.
type Store struct {
	// Dir is the directory; "" means DefaultDir().
	Dir string
	// Workdir is recorded in the sessions this store creates: listing and
	// Latest select by it. "" means the current directory.
	Workdir string
	// Now gives the time of new ids and headers; nil means time.Now.
	Now func() time.Time
}

func (st *Store) dir() (string, error) {
	if st.Dir != "" {
		return st.Dir, nil
	}
	return DefaultDir()
}

func (st *Store) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// workdir is Workdir made absolute.
func (st *Store) workdir() string {
	return absDir(st.Workdir)
}

// AbsWorkdir is Workdir made absolute, as the sessions record it.
func (st *Store) AbsWorkdir() string { return st.workdir() }

func absDir(d string) string {
	if d == "" {
		d = "."
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return filepath.Clean(d)
}

// Path is the file of session id.
func (st *Store) Path(id string) (string, error) {
	if err := CheckID(id); err != nil {
		return "", err
	}
	dir, err := st.dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id+fileExt), nil
}

// Exists reports whether session id is saved.
func (st *Store) Exists(id string) bool {
	p, err := st.Path(id)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// New returns a new session, with id (a new one when id is ""), that is
// created on disk when the first record is written; providerName goes in
// its header.
func (st *Store) New(id, providerName string) (*Session, error) {
	if id == "" {
		id = NewID(st.now())
	}
	path, err := st.Path(id)
	if err != nil {
		return nil, err
	}
	return &Session{st: st, id: id, path: path, provider: providerName}, nil
}

// Create creates session id on disk now, locked for writing; it fails if
// the session exists.
func (st *Store) Create(id, providerName string) (*Session, error) {
	s, err := st.New(id, providerName)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.create(); err != nil {
		return nil, err
	}
	return s, nil
}

// Open loads session id and opens it for writing: the loaded
// conversation goes on from its last complete turn. It fails with
// ErrNotFound when the session is not saved, and with an error naming
// the other process (its pid) when another agentsh writes it.
func (st *Store) Open(id string) (*Session, *Loaded, error) {
	path, err := st.Path(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%w %q in %s", ErrNotFound, id, filepath.Dir(path))
		}
		var nr *userfile.NotRegularError
		if errors.As(err, &nr) {
			return nil, nil, sessionErrorf(ErrUnusable, "session %s: %v; remove it, or start a session of another name", id, err)
		}
		return nil, nil, fmt.Errorf("session %s: %w (check the permissions of %s, or save sessions elsewhere with XDG_STATE_HOME)", id, err, filepath.Dir(path))
	}
	if err := lock(f); err != nil {
		defer f.Close()
		if errors.Is(err, errLocked) {
			return nil, nil, lockedError(id, path)
		}
		return nil, nil, fmt.Errorf("session %s: lock %s: %w", id, path, err)
	}
	l, err := load(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	s := &Session{st: st, id: id, path: path, provider: l.Provider, f: f, turns: l.Turns, messages: len(l.Messages)}
	// A torn last line gets its newline first, so the resume record is a
	// line of its own; nothing saved is rewritten.
	var pre []byte
	if !l.cleanEnd {
		pre = []byte{'\n'}
	}
	b, err := encode(&record{T: recResume, PID: os.Getpid(), Messages: len(l.Messages), Turns: l.Turns})
	if err == nil {
		_, err = f.Write(append(pre, b...))
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("session %s: write %s: %w", id, path, err)
	}
	return s, l, nil
}

var errLocked = errors.New("locked")

// openRegular opens the session file at path with flag, refusing anything
// but a regular file (a *userfile.NotRegularError): reading a FIFO would
// wait forever, and a symbolic link would send the records appended to it
// to another file.
func openRegular(path string, flag int) (*os.File, error) {
	return userfile.Open(path, flag, userfile.RefuseLinks)
}

// lockedError names the process that writes the session.
func lockedError(id, path string) error {
	holder := "another process"
	if l, err := Load(path); err == nil && l.pid != 0 {
		holder = fmt.Sprintf("pid %d", l.pid)
	}
	return sessionErrorf(ErrLocked, "session %s is open in another agentsh (%s); end that one first, or start a new session", id, holder)
}

// Info describes a saved session.
type Info struct {
	ID       string
	Path     string
	Workdir  string
	Provider string
	Created  time.Time
	Modified time.Time // the file's modification time
	Turns    int
	Messages int
	// LastPrompt is the conversation's last user message.
	LastPrompt string
	// Warnings are the loader's (see Loaded.Warnings).
	Warnings []string
}

// List returns the sessions of workdir ("" for every workdir), the most
// recently written first (ties: the greater id first). Each listed
// session is loaded in full, for its turns and last prompt; the files of
// other workdirs are read only as far as their header.
func (st *Store) List(workdir string) ([]Info, error) {
	found, err := st.scan(workdir)
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(found))
	for _, f := range found {
		if info, err := f.load(); err == nil {
			out = append(out, info)
		}
	}
	return out, nil
}

// Latest returns the most recently written session of workdir ("" for
// any workdir); ok is false when there is none. Only that session is
// loaded in full.
func (st *Store) Latest(workdir string) (info Info, ok bool, err error) {
	found, err := st.scan(workdir)
	if err != nil {
		return Info{}, false, err
	}
	for _, f := range found {
		if info, err := f.load(); err == nil {
			return info, true, nil
		}
	}
	return Info{}, false, nil
}

// stored is a session file found by scan, known by its header.
type stored struct {
	id, path string
	modified time.Time
}

func (f stored) load() (Info, error) {
	l, err := Load(f.path)
	if err != nil {
		return Info{}, err // removed meanwhile, or unreadable
	}
	return Info{ID: l.ID, Path: f.path, Workdir: l.Workdir, Provider: l.Provider, Created: l.Created,
		Modified: f.modified, Turns: l.Turns, Messages: len(l.Messages), LastPrompt: l.LastPrompt(), Warnings: l.Warnings}, nil
}

// scan finds the session files of workdir ("" for every workdir) by
// their headers, in List's order.
func (st *Store) scan(workdir string) ([]stored, error) {
	dir, err := st.dir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sessions: %w", err)
	}
	if workdir != "" {
		workdir = absDir(workdir)
	}
	var out []stored
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, fileExt) || CheckID(strings.TrimSuffix(name, fileExt)) != nil {
			continue
		}
		path := filepath.Join(dir, name)
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		h, err := readHeader(path)
		if err != nil || (workdir != "" && h.Workdir != workdir) {
			continue
		}
		out = append(out, stored{id: strings.TrimSuffix(name, fileExt), path: path, modified: fi.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].modified.Equal(out[j].modified) {
			return out[i].modified.After(out[j].modified)
		}
		return out[i].id > out[j].id
	})
	return out, nil
}

// Session is one session open for writing. Its methods are safe for
// concurrent use. After a write fails, the session writes nothing more
// (the file stays whole up to its last commit) and every method returns
// that error.
type Session struct {
	st       *Store
	id, path string

	mu       sync.Mutex
	provider string
	f        *os.File // nil until created (New) or after Close
	closed   bool
	turns    int
	messages int
	dirty    bool  // records written since the last commit
	err      error // the first write error
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// Path is the session's file.
func (s *Session) Path() string { return s.path }

// Turns counts the complete turns saved, loaded ones included.
func (s *Session) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns
}

// Workdir is the workdir of the sessions' store.
func (s *Session) Workdir() string { return s.st.workdir() }

// create makes the file, locks it and writes the header. s.mu is held.
func (s *Session) create() error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("session %s: %w; set XDG_STATE_HOME to a writable directory", s.id, err)
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return sessionErrorf(ErrExists, "session %s exists already (%s); resume it, or choose another name", s.id, s.path)
		}
		return fmt.Errorf("session %s: %w", s.id, err)
	}
	if err := lock(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return lockedError(s.id, s.path)
		}
		return fmt.Errorf("session %s: lock: %w", s.id, err)
	}
	b, err := encode(&record{T: recSession, V: formatVersion, ID: s.id, Workdir: s.st.workdir(), Provider: s.provider,
		Created: timestamp(s.st.now()), PID: os.Getpid()})
	if err == nil {
		_, err = f.Write(b)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("session %s: write %s: %w", s.id, s.path, err)
	}
	s.f = f
	syncDir(dir) // the new file's name survives a crash with its first turn
	return nil
}

// syncDir syncs a directory's entries, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// write appends one record, creating the file first if need be.
func (s *Session) write(r *record) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return fmt.Errorf("session %s is closed", s.id)
	}
	if s.f == nil {
		if err := s.create(); err != nil {
			s.err = err
			return err
		}
	}
	b, err := encode(r)
	if err == nil {
		_, err = s.f.Write(b)
	}
	if err != nil {
		s.err = fmt.Errorf("session %s: write %s: %w", s.id, s.path, err)
		return s.err
	}
	s.dirty = true
	return nil
}

// Append records a message that joined the conversation, with the
// decision records of the call whose result it is.
func (s *Session) Append(m provider.Message, decisions []core.Decision) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(msgRecord(m, decisions)); err != nil {
		return err
	}
	s.messages++
	return nil
}

// Replace records that the conversation was replaced by msgs, and why
// ("compact", ...).
func (s *Session) Replace(msgs []provider.Message, why string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &record{T: recReplace, Why: why, Msgs: make([]wireMsg, len(msgs))}
	for i, m := range msgs {
		r.Msgs[i] = toWire(m)
	}
	if r.Msgs == nil || len(msgs) == 0 {
		r.Msgs = []wireMsg{}
	}
	if err := s.write(r); err != nil {
		return err
	}
	s.messages = len(msgs)
	return nil
}

// Commit marks the conversation whole and syncs the file: at the end of a
// model turn (turn > 0, with its usage) or of a run (turn 0; nothing is
// written when nothing changed since the last commit).
func (s *Session) Commit(turn int, usage provider.Usage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if turn <= 0 && !s.dirty {
		return s.err
	}
	r := &record{T: recRun}
	if turn > 0 {
		r = &record{T: recTurn, Turn: s.turns + 1, Usage: &usage}
	}
	if err := s.write(r); err != nil {
		return err
	}
	if turn > 0 {
		s.turns++
	}
	if err := s.f.Sync(); err != nil {
		s.err = fmt.Errorf("session %s: sync %s: %w", s.id, s.path, err)
		return s.err
	}
	s.dirty = false
	return nil
}

// Close releases the session's file and its lock.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
