package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsh/agentsh/internal/jsonl"
	"github.com/agentsh/agentsh/internal/userfile"
	"github.com/agentsh/agentsh/provider"
)

// Loaded is a session as read from its file.
type Loaded struct {
	// ID is the file's name without .jsonl; Workdir, Provider and
	// Created come from the header.
	ID       string
	Workdir  string
	Provider string
	Created  time.Time
	// Messages is the conversation as of the last complete turn.
	Messages []provider.Message
	// Turns counts the complete turns.
	Turns int
	// Warnings say what was left out and why (a torn or corrupt record,
	// an unfinished turn), naming the file and line.
	Warnings []string
	// Lines and Bytes count what was read.
	Lines int
	Bytes int64

	cleanEnd bool // the file is empty or ends with a newline
	pid      int  // the last writer's, from its header or resume record
}

// LastPrompt is the last user message of the conversation, or "".
func (l *Loaded) LastPrompt() string {
	for i := len(l.Messages) - 1; i >= 0; i-- {
		if l.Messages[i].Role == provider.RoleUser {
			return l.Messages[i].Content
		}
	}
	return ""
}

// ErrNotFound is the error of loading a session that is not saved.
var ErrNotFound = errors.New("no such session")

// Load reads the session file at path without locking it. A path that
// is not a regular file (a FIFO, a symbolic link) is refused.
func Load(path string) (*Loaded, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
		}
		var nr *userfile.NotRegularError
		if errors.As(err, &nr) {
			return nil, fmt.Errorf("session: %w; remove it", err)
		}
		return nil, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	return load(f, path)
}

// load replays the records of r (the file at path).
func load(r io.Reader, path string) (*Loaded, error) {
	l := &Loaded{ID: strings.TrimSuffix(filepath.Base(path), fileExt), cleanEnd: true}
	var (
		working, committed []provider.Message
		turns              int
		lastCommit         int // the line of the last commit, 0: none
		pendingFrom        int // the first line after the last commit, 0: none
		broken             int // the first bad line since the last commit, 0: none
		brokenWhy          string
		skipped            int // lines left out after broken
		sawHeader          bool
	)
	commit := func(n int) {
		committed = working[:len(working):len(working)]
		l.Turns = turns
		lastCommit, pendingFrom = n, 0
	}
	since := func() string {
		if lastCommit == 0 {
			return "its start"
		}
		return fmt.Sprintf("its last complete turn (line %d)", lastCommit)
	}
	flushBroken := func() {
		if broken == 0 {
			return
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("%s:%d: %s; the session goes on from %s, leaving out %d line(s) after it (they stay in the file)",
			path, broken, brokenWhy, since(), skipped))
		broken, skipped = 0, 0
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, err := jsonl.ReadLine(br, buf[:0])
		buf = line
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("session: read %s: %w", path, err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		l.Lines++
		l.Bytes += int64(len(line))
		torn := false
		if line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		} else {
			l.cleanEnd, torn = false, true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				break
			}
			continue // the line a writer adds before appending after a torn one
		}
		var rec loadRecord
		bad := ""
		if jerr := json.Unmarshal(line, &rec); jerr != nil {
			bad = "a corrupt record (" + jerr.Error() + ")"
			if torn {
				bad = "the last record is cut short (the process ended while writing it)"
			}
		}
		if bad == "" && broken != 0 && rec.T != recResume {
			skipped++
			if err == io.EOF {
				break
			}
			continue
		}
		if bad == "" {
			switch rec.T {
			case recSession:
				if sawHeader || l.Lines > 1 {
					bad = "a second header"
					break
				}
				// The id is the file's name, not the header's: a renamed or
				// copied session is the session of its new name.
				sawHeader = true
				l.Workdir, l.Provider, l.pid = rec.Workdir, rec.Provider, rec.PID
				l.Created, _ = time.Parse(time.RFC3339, rec.Created)
			case recMsg:
				w, werr := rec.wire()
				var m provider.Message
				if werr == nil {
					m, werr = w.message()
				}
				if werr != nil {
					bad = "a corrupt record (" + werr.Error() + ")"
					break
				}
				if pendingFrom == 0 {
					pendingFrom = n
				}
				working = append(working, m)
			case recReplace:
				msgs := make([]provider.Message, 0, len(rec.Msgs))
				for i := range rec.Msgs {
					m, werr := rec.Msgs[i].message()
					if werr != nil {
						bad = fmt.Sprintf("a corrupt record (message %d: %v)", i, werr)
						break
					}
					msgs = append(msgs, m)
				}
				if bad != "" {
					break
				}
				if pendingFrom == 0 {
					pendingFrom = n
				}
				working = msgs
			case recTurn:
				turns++
				commit(n)
			case recRun:
				commit(n)
			case recResume:
				// A writer went on from the last commit: what came after it
				// (an unfinished turn, a bad record) is left out.
				if broken == 0 && pendingFrom != 0 {
					l.Warnings = append(l.Warnings, fmt.Sprintf("%s:%d-%d: an unfinished turn (the process ended during it) is left out; the session went on from %s",
						path, pendingFrom, n-1, since()))
				}
				flushBroken()
				working, turns, pendingFrom = committed, l.Turns, 0
				if rec.PID != 0 {
					l.pid = rec.PID
				}
			default:
				bad = fmt.Sprintf("a record of unknown type %q", rec.T)
			}
		}
		if bad != "" {
			if broken == 0 {
				broken, brokenWhy = n, bad
				working, turns, pendingFrom = committed, l.Turns, 0
			} else {
				skipped++
			}
		}
		if err == io.EOF {
			break
		}
	}
	if broken == 0 && pendingFrom != 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%s:%d-%d: an unfinished turn (the process ended during it) is left out; the session goes on from %s",
			path, pendingFrom, l.Lines, since()))
	}
	flushBroken()
	l.Messages = committed
	return l, nil
}

// maxHeader bounds how much of a file readHeader reads before it leaves
// the file to Load; a header is a few hundred bytes.
const maxHeader = 64 << 10

// readHeader decodes the first line of the session file at path as Load
// does: a "session" record there gives the workdir, anything else
// (a torn or corrupt first line, another record, an empty file) gives a
// zero record, as Load then has no workdir either.
func readHeader(path string) (record, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return record{}, err
	}
	defer f.Close()
	line, err := jsonl.ReadLine(bufio.NewReader(io.LimitReader(f, maxHeader)), nil)
	if err != nil && err != io.EOF {
		return record{}, err
	}
	if len(line) == maxHeader && line[len(line)-1] != '\n' {
		// Far longer than a header, so surely not one; Load decides.
		l, err := Load(path)
		if err != nil {
			return record{}, err
		}
		return record{T: recSession, Workdir: l.Workdir}, nil
	}
	var rec loadRecord // what Load decodes, so that both fail alike
	if json.Unmarshal(line, &rec) != nil || rec.T != recSession {
		return record{}, nil
	}
	return rec.record, nil
}
