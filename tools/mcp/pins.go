package mcp

import (
	"bytes"
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
)

// Pins keeps the accepted definitions of upstream tools in a JSON file,
// by local name (mcp__SERVER__TOOL). A Client with pins (WithPins) checks
// every listing against them: a tool seen for the first time is pinned
// (trust on first use); a tool whose definition is the pinned one is
// registered; a tool whose definition differs is held back — recorded in
// the file as waiting, not registered, so neither listed to a model nor
// callable — until a person accepts it (Accept; agentsh mcp pins
// --accept NAME).
//
// Pins is safe for concurrent use within a process; the file is replaced
// atomically, so a reader never sees half of it.
type Pins struct {
	path string
	mu   sync.Mutex
}

// NewPins returns pins kept in path, which need not exist yet.
func NewPins(path string) *Pins { return &Pins{path: path} }

// Path is the pins file.
func (p *Pins) Path() string { return p.path }

// pinFile is the JSON of a pins file: the accepted definitions, and the
// changed ones last seen, waiting to be accepted.
type pinFile struct {
	Tools   map[string]*pinRecord `json:"tools"`
	Pending map[string]*pinRecord `json:"pending,omitempty"`
}

// pinRecord is one definition and its digest. Pins written before
// definitions were kept hold only digests: of name, description and
// schema together (SHA256), and of the description and schema alone.
type pinRecord struct {
	SHA256            string      `json:"sha256"`
	Definition        *Definition `json:"definition,omitempty"`
	DescriptionSHA256 string      `json:"description_sha256,omitempty"`
	SchemaSHA256      string      `json:"schema_sha256,omitempty"`
}

// Held says why an upstream tool is held back: its definition differs
// from the pinned one in Changed ("name", "title", "description", "input
// schema", "annotations", or "definition" for a pin that kept digests
// only). Its Error is what the person, and a caller of the tool, are
// told.
type Held struct {
	Tool    string // the local name, mcp__SERVER__TOOL
	Server  string
	Changed []string
	Pins    string // the pins file

	digest string // of the definition held back
}

func (h Held) Error() string {
	return fmt.Sprintf("tool %s is held back: its %s changed since it was pinned; the model is not shown it and it cannot be called "+
		"until a person reviews the change with `agentsh mcp pins --pins %s` and accepts it with `agentsh mcp pins --pins %s --accept %s`",
		h.Tool, joinAnd(h.Changed), h.Pins, h.Pins, h.Tool)
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return "definition"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// check compares live definitions, by local name, with the pins: it pins
// the ones never seen, records the changed ones as waiting, forgets a
// waiting definition when the live one is the pinned one again, and
// returns what changed in each tool that is held back. The file is
// written only when something in it changes.
func (p *Pins) check(live map[string]*Definition) (map[string][]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := readPins(p.path)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(live))
	for n := range live {
		names = append(names, n)
	}
	sort.Strings(names)
	held := map[string][]string{}
	dirty := false
	for _, name := range names {
		d := live[name]
		sum := d.digest()
		rec, seen := f.Tools[name]
		switch {
		case !seen:
			f.Tools[name] = &pinRecord{SHA256: sum, Definition: d}
		case rec.Definition != nil && rec.SHA256 == sum:
		case rec.Definition == nil && rec.SHA256 == legacyDigest(name, d):
			f.Tools[name] = &pinRecord{SHA256: sum, Definition: d} // keep the text from now on
		default:
			held[name] = rec.changes(name, d)
			if w := f.Pending[name]; w == nil || w.SHA256 != sum {
				f.Pending[name] = &pinRecord{SHA256: sum, Definition: d}
				dirty = true
			}
			continue
		}
		if f.Tools[name] != rec || f.Pending[name] != nil {
			delete(f.Pending, name) // the live definition is the pinned one
			dirty = true
		}
	}
	if dirty {
		if err := writePins(p.path, f); err != nil {
			return nil, err
		}
	}
	return held, nil
}

// changes names what differs between the pin and a live definition.
func (r *pinRecord) changes(name string, now *Definition) []string {
	if r.Definition != nil {
		return r.Definition.changes(now)
	}
	_, desc, schema := legacyParts(name, now)
	var parts []string
	if desc != r.DescriptionSHA256 {
		parts = append(parts, "description")
	}
	if schema != r.SchemaSHA256 {
		parts = append(parts, "input schema")
	}
	if len(parts) == 0 {
		parts = []string{"definition"}
	}
	return parts
}

// legacyDigest is the digest pins had before they kept definitions: of
// the local name, the description the model sees and the input schema
// (re-encoded by encoding/json), each preceded by its length.
func legacyDigest(name string, d *Definition) string {
	all, _, _ := legacyParts(name, d)
	return all
}

func legacyParts(name string, d *Definition) (all, desc, schema string) {
	s := []byte(`{"type":"object"}`)
	if len(d.InputSchema) > 0 {
		var v any
		if err := json.Unmarshal(d.InputSchema, &v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				s = b
			}
		}
	}
	description := d.description()
	h := sha256.New()
	for _, part := range [][]byte{[]byte(name), []byte(description), s} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil)), hexSum([]byte(description)), hexSum(s)
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Accept makes the waiting definition of the tool named (its local name)
// the pinned one, and returns it. With a digest (a prefix of
// PinnedTool.LiveSHA256, as agentsh mcp pins shows it), it accepts only
// that definition: one the server sent after the person reviewed the
// change is refused. Sessions that are running pick it up at their next
// listing of the server (its next tools/list_changed, or the next start).
func (p *Pins) Accept(name, digest string) (*Definition, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := readPins(p.path)
	if err != nil {
		return nil, err
	}
	rec, ok := f.Pending[name]
	if ok && !strings.HasPrefix(rec.SHA256, strings.ToLower(digest)) {
		return nil, fmt.Errorf("the changed definition of %s waiting in %s is %s, not the %s you reviewed: the server changed it again; review it with `agentsh mcp pins %s`",
			name, p.path, shortDigest(rec.SHA256), digest, name)
	}
	if !ok {
		var names []string
		for n := range f.Pending {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("no changed definition of %q is waiting in %s: nothing to accept", name, p.path)
		}
		return nil, fmt.Errorf("no changed definition of %q is waiting in %s; waiting: %s", name, p.path, strings.Join(names, ", "))
	}
	f.Tools[name] = rec
	delete(f.Pending, name)
	if err := writePins(p.path, f); err != nil {
		return nil, err
	}
	return rec.Definition, nil
}

// PinnedTool is one tool of a pins file.
type PinnedTool struct {
	Name string // the local name, mcp__SERVER__TOOL
	// Pinned is the accepted definition; nil for a pin that kept its
	// digest only (written before definitions were kept), or none.
	Pinned *Definition
	// Live is the changed definition last seen, waiting to be accepted;
	// nil when none is. LiveSHA256 is its digest, for Accept.
	Live       *Definition
	LiveSHA256 string
	// Changed names what differs between Pinned and Live.
	Changed []string
}

// shortDigest is the beginning of a digest that names a definition to a
// person: 12 hex digits.
func shortDigest(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// ShortDigest is the beginning of the live definition's digest that
// agentsh mcp pins shows, and Accept takes.
func (pt *PinnedTool) ShortDigest() string { return shortDigest(pt.LiveSHA256) }

// List returns every tool of the pins file, sorted by name.
func (p *Pins) List() ([]PinnedTool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := readPins(p.path)
	if err != nil {
		return nil, err
	}
	byName := map[string]*PinnedTool{}
	for n, rec := range f.Tools {
		byName[n] = &PinnedTool{Name: n, Pinned: rec.Definition}
	}
	for n, rec := range f.Pending {
		pt := byName[n]
		if pt == nil {
			pt = &PinnedTool{Name: n}
			byName[n] = pt
		}
		pt.Live, pt.LiveSHA256 = rec.Definition, rec.SHA256
		if pinned := f.Tools[n]; pinned != nil {
			pt.Changed = pinned.changes(n, rec.Definition)
		} else {
			pt.Changed = []string{"definition"}
		}
	}
	out := make([]PinnedTool, 0, len(byName))
	for _, pt := range byName {
		out = append(out, *pt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ErrPinsFile is the error of a pins file that cannot be read, written or
// used; errors.Is finds it. Another path for NewPins avoids it.
var ErrPinsFile = errors.New("pins file unusable")

// pinsFileError is an error of a pins file, with its own message, that
// errors.Is matches to ErrPinsFile and that unwraps to its cause.
type pinsFileError struct {
	msg   string
	cause error
}

func pinsFileErrorf(cause error, format string, args ...any) error {
	return &pinsFileError{fmt.Sprintf(format, args...), cause}
}

func (e *pinsFileError) Error() string        { return e.msg }
func (e *pinsFileError) Is(target error) bool { return target == ErrPinsFile }
func (e *pinsFileError) Unwrap() error        { return e.cause }

// corrupt is the error of a pins file that cannot be used.
func corrupt(path, what string) error {
	return pinsFileErrorf(nil, "pins file %s is corrupt: %s; fix it, or move it away so that every upstream tool is pinned again at first sight (or use another pins file)", path, what)
}

func readPins(path string) (*pinFile, error) {
	f := &pinFile{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, pinsFileErrorf(err, "read pins file: %v; use another pins file", err)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f); err != nil {
			return nil, corrupt(path, fmt.Sprintf("it is not a pins JSON object (%v)", err))
		}
		if dec.More() {
			return nil, corrupt(path, "text follows the JSON object")
		}
	}
	if f.Tools == nil {
		f.Tools = map[string]*pinRecord{}
	}
	if f.Pending == nil {
		f.Pending = map[string]*pinRecord{}
	}
	for i, set := range []map[string]*pinRecord{f.Tools, f.Pending} {
		for name, rec := range set {
			if err := rec.valid(i == 1); err != nil {
				return nil, corrupt(path, fmt.Sprintf("the entry of %q %v", name, err))
			}
		}
	}
	return f, nil
}

// valid checks that a record is whole and its digest is its
// definition's; a waiting record must have its definition. The JSON of the
// definition, indented in the file, is compacted again (its keys were
// written sorted; a file edited otherwise no longer matches its digest).
func (r *pinRecord) valid(waiting bool) error {
	if r != nil && r.Definition != nil {
		for _, raw := range []*json.RawMessage{&r.Definition.InputSchema, &r.Definition.Annotations} {
			if len(*raw) == 0 {
				continue
			}
			var c bytes.Buffer
			if err := json.Compact(&c, *raw); err != nil {
				return fmt.Errorf("has a definition with bad JSON: %v", err)
			}
			*raw = c.Bytes()
		}
	}
	switch {
	case r == nil:
		return errors.New("is null")
	case len(r.SHA256) != 64:
		return errors.New("has no sha256 digest")
	case r.Definition == nil && waiting:
		return errors.New("has no definition")
	case r.Definition == nil:
		return nil // a pin of digests only
	case r.Definition.Server == "" || r.Definition.Tool == "":
		return errors.New("has a definition without server or tool")
	case r.Definition.digest() != r.SHA256:
		return errors.New("does not match its sha256 digest (was the definition edited?)")
	}
	return nil
}

func writePins(path string, f *pinFile) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return pinsFileErrorf(err, "write pins file: %v; use another pins file", err)
	}
	tmp, err := os.CreateTemp(dir, ".pins-*")
	if err != nil {
		return pinsFileErrorf(err, "write pins file: %v; use another pins file", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("write pins file %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write pins file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write pins file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write pins file %s: %w", path, err)
	}
	return nil
}
