package hookadapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/filelock"
)

// DefaultStateDir is where hook state lives: $XDG_STATE_HOME/agentsh/hook,
// or ~/.local/state/agentsh/hook.
func DefaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: set XDG_STATE_HOME or HOME (%v)", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "agentsh", "hook"), nil
}

// stateFile is one agent session's state, locked from openState to close
// so that concurrent hook processes of the session take turns.
type stateFile struct {
	path string
	lock *os.File
	// loaded is the state as load found it, encoded as save would: a
	// state the event did not change is not written again (no rename, no
	// fsync on every event).
	loaded []byte
}

// openState locks the state of session under dir/agent. The session id is
// hashed into the file name: it comes from the agent's input and must not
// name a path.
func openState(dir, agent, session string) (*stateFile, error) {
	sum := sha256.Sum256([]byte(session))
	d := filepath.Join(dir, agent)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, fmt.Errorf("hook state: %v; set XDG_STATE_HOME to a writable directory", err)
	}
	base := filepath.Join(d, hex.EncodeToString(sum[:16]))
	lock, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hook state: %v", err)
	}
	if err := filelock.Lock(lock); err != nil {
		lock.Close()
		return nil, fmt.Errorf("hook state: locking %s: %v", lock.Name(), err)
	}
	return &stateFile{path: base + ".json", lock: lock}, nil
}

func (s *stateFile) close() {
	filelock.Unlock(s.lock)
	s.lock.Close()
}

// load puts the stored state into sess. A missing file is an empty state;
// a damaged one is an error (the policies' counters cannot be trusted).
func (s *stateFile) load(sess *core.Session) (err error) {
	defer func() {
		if err == nil {
			s.loaded, _ = encodeState(sess)
		}
	}()
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hook state: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("hook state %s is damaged (%v); delete it to start the session's state afresh", s.path, err)
	}
	for k, v := range m {
		sess.Set(k, shape(v))
	}
	return nil
}

// encodeState is sess's state as the file holds it.
func encodeState(sess *core.Session) ([]byte, error) {
	m := map[string]any{}
	for _, k := range sess.Keys() {
		v, _ := sess.Get(k)
		m[k] = v
	}
	return core.MarshalJSON(m)
}

// save writes sess's state by atomic rename: a reader sees the old state
// or the new one, never part of one. A state that did not change since
// load is not written.
func (s *stateFile) save(sess *core.Session) error {
	b, err := encodeState(sess)
	if err != nil {
		return fmt.Errorf("hook state: %v", err)
	}
	if s.loaded != nil && bytes.Equal(b, s.loaded) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".state-*")
	if err != nil {
		return fmt.Errorf("hook state: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("hook state: %v", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("hook state: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("hook state: %v", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("hook state: %v", err)
	}
	return nil
}

// shape turns decoded JSON into the session's shapes: integers as int64
// (state.incr counts in them), other numbers as float64.
func shape(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, err := v.Float64()
		if err != nil || math.IsInf(f, 0) {
			return v.String()
		}
		return f
	case []any:
		for i := range v {
			v[i] = shape(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = shape(v[k])
		}
	}
	return v
}
