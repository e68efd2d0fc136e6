package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// UpstreamPrefix starts the names of the tools of upstream MCP servers
// (see package tools/mcp); they are the tools Pins guards.
const UpstreamPrefix = "mcp__"

// Pin is the recorded definition of one tool: SHA-256 digests of its
// description, of its schema in canonical JSON (keys sorted, no spaces),
// and of name, description and schema together.
type Pin struct {
	SHA256      string `json:"sha256"`
	Description string `json:"description_sha256"`
	Schema      string `json:"schema_sha256"`
}

// PinOf returns t's pin.
func PinOf(t *core.Tool) (Pin, error) {
	schema := []byte(`{"type":"object"}`)
	if len(t.Parameters) > 0 {
		var v any
		if err := json.Unmarshal(t.Parameters, &v); err != nil {
			return Pin{}, fmt.Errorf("tool %s: its schema is not JSON: %w", t.Name, err)
		}
		b, err := json.Marshal(v) // map keys sorted: canonical
		if err != nil {
			return Pin{}, err
		}
		schema = b
	}
	all := sha256.New()
	for _, part := range [][]byte{[]byte(t.Name), []byte(t.Description), schema} {
		fmt.Fprintf(all, "%d:", len(part)) // lengths keep the parts apart
		all.Write(part)
	}
	return Pin{SHA256: hex.EncodeToString(all.Sum(nil)), Description: digest([]byte(t.Description)), Schema: digest(schema)}, nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// pinFile is the JSON of a pins file: the accepted definitions, and the
// changed ones seen since, waiting for acceptance.
type pinFile struct {
	Tools   map[string]Pin `json:"tools"`
	Pending map[string]Pin `json:"pending,omitempty"`
}

// Pins guards the definitions of upstream tools with a pins file. The
// first time a tool is seen its pin is recorded; a later definition that
// differs is recorded as pending and its calls are refused until
// AcceptPin. Safe for concurrent use; the file is replaced atomically.
type Pins struct {
	path string
	mu   sync.Mutex
	ok   map[*core.Tool]bool // definitions found pinned
}

// NewPins returns pins kept in path, which need not exist yet.
func NewPins(path string) *Pins { return &Pins{path: path, ok: map[*core.Tool]bool{}} }

// Path is the pins file.
func (p *Pins) Path() string { return p.path }

// Check returns nil when t's definition is the pinned one, pinning it if
// t was never seen, and a *ChangedError when it changed.
func (p *Pins) Check(t *core.Tool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ok[t] {
		return nil
	}
	pin, err := PinOf(t)
	if err != nil {
		return err
	}
	f, err := readPins(p.path)
	if err != nil {
		return err
	}
	old, seen := f.Tools[t.Name]
	switch {
	case !seen:
		f.Tools[t.Name] = pin
		delete(f.Pending, t.Name)
	case old.SHA256 == pin.SHA256:
		p.ok[t] = true
		return nil
	default:
		if f.Pending[t.Name] == pin {
			return changed(t.Name, old, pin, p.path)
		}
		f.Pending[t.Name] = pin
	}
	if err := writePins(p.path, f); err != nil {
		return err
	}
	if !seen {
		p.ok[t] = true
		return nil
	}
	return changed(t.Name, old, pin, p.path)
}

// Hook is a before hook on the upstream tools (mcp__*) that refuses a
// call whose tool's definition is not the pinned one.
func (p *Pins) Hook(reg *core.Registry) core.BeforeHook {
	return core.BeforeHook{Name: "pins", Tools: []string{UpstreamPrefix + "*"}, Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
		t := call.Tool
		if t == nil {
			t = reg.GetTool(call.Name)
		}
		if t == nil {
			return nil, nil
		}
		if err := p.Check(t); err != nil {
			return nil, core.Deny(err.Error())
		}
		return nil, nil
	}}
}

// ChangedError says which parts of a pinned definition changed.
type ChangedError struct {
	Tool  string
	Parts []string // "description", "input schema", or "name" alone when neither
	Path  string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("tool %s changed since it was pinned (%s changed): calls to it are refused until you review and accept it with: agentsh mcp pins --accept %s --pins %s",
		e.Tool, strings.Join(e.Parts, " and "), e.Tool, e.Path)
}

func changed(name string, old, now Pin, path string) error {
	var parts []string
	if old.Description != now.Description {
		parts = append(parts, "description")
	}
	if old.Schema != now.Schema {
		parts = append(parts, "input schema")
	}
	if len(parts) == 0 {
		parts = []string{"definition"}
	}
	return &ChangedError{Tool: name, Parts: parts, Path: path}
}

// AcceptPin makes the pending definition of tool the pinned one.
func AcceptPin(path, tool string) error {
	f, err := readPins(path)
	if err != nil {
		return err
	}
	pin, ok := f.Pending[tool]
	if !ok {
		var names []string
		for n := range f.Pending {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return fmt.Errorf("no changed definition of %q is waiting in %s: nothing to accept", tool, path)
		}
		return fmt.Errorf("no changed definition of %q is waiting in %s; waiting: %s", tool, path, strings.Join(names, ", "))
	}
	f.Tools[tool] = pin
	delete(f.Pending, tool)
	return writePins(path, f)
}

// ListPins returns the pinned and the pending tool names, sorted.
func ListPins(path string) (pinned, pending []string, err error) {
	f, err := readPins(path)
	if err != nil {
		return nil, nil, err
	}
	for n := range f.Tools {
		pinned = append(pinned, n)
	}
	for n := range f.Pending {
		pending = append(pending, n)
	}
	sort.Strings(pinned)
	sort.Strings(pending)
	return pinned, pending, nil
}

func readPins(path string) (*pinFile, error) {
	f := &pinFile{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read pins: %w", err)
	default:
		if err := json.Unmarshal(b, f); err != nil {
			return nil, fmt.Errorf("pins file %s is not valid JSON (%v): fix or remove it, and every upstream tool is pinned again at first sight", path, err)
		}
	}
	if f.Tools == nil {
		f.Tools = map[string]Pin{}
	}
	if f.Pending == nil {
		f.Pending = map[string]Pin{}
	}
	return f, nil
}

func writePins(path string, f *pinFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write pins: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pins-*")
	if err != nil {
		return fmt.Errorf("write pins: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write pins: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write pins: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write pins: %w", err)
	}
	return nil
}
