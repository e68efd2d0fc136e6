package policydiff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/jsonl"
	"github.com/agentsh/agentsh/internal/userfile"
)

// Pos is where a call was recorded: a file and its line, from 1.
type Pos struct {
	File string
	Line int
}

// String is file:line.
func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Format is the kind of a source file.
type Format string

// The formats Read knows.
const (
	FormatAudit     Format = "audit"
	FormatSession   Format = "session"
	FormatRecording Format = "recording"
)

// Call is one recorded call to re-decide.
type Call struct {
	At     Pos
	Format Format
	ID     string
	Tool   string
	// Args are the arguments the caller sent, before they were made
	// canonical: what a policy sees first.
	Args   json.RawMessage
	Origin core.Origin
	// WorkDir is the recorded working directory; "" means the diff's.
	WorkDir string
}

// Source is what Read took from one file.
type Source struct {
	File   string `json:"file"`
	Format Format `json:"format,omitempty"` // "" for an empty file
	Calls  int    `json:"calls"`
}

// Corpus is the calls read from the sources, in the order read, and the
// records that were not calls to re-decide. A Corpus is not safe for
// concurrent changes; Diff only reads it.
type Corpus struct {
	Calls   []Call
	Sources []Source
	// Skipped counts the records left out, by why.
	Skipped map[string]int
}

// Skip reasons.
const (
	skipObserve = "observe"        // an audit record of a call agentsh did not decide
	skipTorn    = "torn"           // a last line cut short
	skipFailed  = "failed request" // a recorded request that failed: no calls
)

// InputError is a source that cannot be read: the file (and line, when
// one is to blame) and what is wrong with it.
type InputError struct {
	At  Pos // Line 0: the file as a whole
	Msg string
}

// Error is "FILE:LINE: what is wrong; what to do".
func (e *InputError) Error() string {
	if e.At.Line == 0 {
		return e.At.File + ": " + e.Msg
	}
	return e.At.String() + ": " + e.Msg
}

// Read reads the recorded calls of paths (files, directories or session
// ids; see the package doc) into a Corpus.
func Read(paths []string) (*Corpus, error) {
	c := &Corpus{Skipped: map[string]int{}}
	for _, p := range paths {
		if err := c.readPath(p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Corpus) readPath(p string) error {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if session.CheckID(p) == nil && !strings.ContainsRune(p, os.PathSeparator) {
			if sp, perr := (&session.Store{}).Path(p); perr == nil {
				if _, serr := os.Stat(sp); serr == nil {
					return c.readFile(sp)
				}
			}
		}
		return &InputError{At: Pos{File: p}, Msg: "no such file, directory or saved session; give an audit log, a session file or id (agentsh sessions lists them), or a recording"}
	}
	if err != nil {
		return &InputError{At: Pos{File: p}, Msg: unwrapPath(err) + "; give a file or directory that can be read"}
	}
	if !fi.IsDir() {
		return c.readFile(p)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return &InputError{At: Pos{File: p}, Msg: unwrapPath(err) + "; give a directory that can be read"}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		if err := c.readFile(filepath.Join(p, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readFile reads a regular file; a FIFO or a device is refused at once
// rather than waited on.
func (c *Corpus) readFile(path string) error {
	f, err := userfile.Open(path, os.O_RDONLY, userfile.FollowLinks)
	if err != nil {
		var nr *userfile.NotRegularError
		if errors.As(err, &nr) {
			return &InputError{At: Pos{File: path}, Msg: "it is " + userfile.Kind(nr.Mode) + ", not a regular file; give an audit log, a session file or a recording"}
		}
		return &InputError{At: Pos{File: path}, Msg: unwrapPath(err) + "; give a file that can be read"}
	}
	defer f.Close()
	return c.Add(f, path)
}

// Add reads the calls of one source, named name in positions and
// messages, and adds them to c.
func (c *Corpus) Add(r io.Reader, name string) error {
	if c.Skipped == nil {
		c.Skipped = map[string]int{}
	}
	src := Source{File: name}
	before := len(c.Calls)
	var dec lineDecoder
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, err := jsonl.ReadLine(br, buf[:0])
		buf = line
		if err != nil && err != io.EOF {
			return &InputError{At: Pos{name, n}, Msg: err.Error() + "; give a file that can be read"}
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		torn := line[len(line)-1] != '\n'
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			at := Pos{name, n}
			if dec == nil {
				dec, src.Format = detect(line)
				if dec == nil {
					if torn && !json.Valid(line) {
						c.Skipped[skipTorn]++
						break
					}
					return &InputError{At: at, Msg: "not a line of an audit log, a session or a recording (" + preview(line, 40) +
						"); give the files agentsh --audit, --session or --record wrote"}
				}
			}
			if derr := dec(c, line, at); derr != nil {
				if torn && !json.Valid(line) {
					c.Skipped[skipTorn]++ // the writer stopped in the middle of it
					break
				}
				return &InputError{At: at, Msg: fmt.Sprintf("not a line of %s: %v; fix or remove the line (the file's first line made it %s)",
					formatNoun(src.Format), derr, formatNoun(src.Format))}
			}
		}
		if err == io.EOF {
			break
		}
	}
	src.Calls = len(c.Calls) - before
	c.Sources = append(c.Sources, src)
	return nil
}

func formatNoun(f Format) string {
	switch f {
	case FormatAudit:
		return "an audit log"
	case FormatSession:
		return "a session"
	}
	return "a recording"
}

// preview is a short, one-line rendering of b.
func preview(b []byte, n int) string {
	if len(b) > 8*n {
		b = b[:8*n] // n characters of at most 4 bytes, and spaces
	}
	s := strings.Join(strings.Fields(string(b)), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
