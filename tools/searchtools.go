package tools

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/search"
	"github.com/bmatcuk/doublestar/v4"
)

// Defaults of grep and glob.
const (
	defaultHeadLimit = 500
	defaultGlobLimit = 500
)

func init() {
	toolBuilders["grep"] = (*Extension).grepTool
	toolBuilders["glob"] = (*Extension).globTool
}

// newGrepper opens the grep backend registered as name (see
// search.RegisterGrep); a backend whose program is missing is an error,
// never a silent fallback.
func (x *Extension) newGrepper(name string) (search.Grepper, error) {
	return search.OpenGrep(name, x.realRoot)
}

// newGlobber opens the glob backend registered as name, as newGrepper.
func (x *Extension) newGlobber(name string) (search.Globber, error) {
	return search.OpenGlob(name, x.realRoot)
}

// CheckGrepBackend reports whether SetGrepBackend(name) would succeed,
// changing nothing.
func (x *Extension) CheckGrepBackend(name string) error { return x.grep.check(name, x.newGrepper) }

// SetGrepBackend switches grep to the backend registered as name:
// "native", "ripgrep" (see search.GrepBackends), or a program's own.
func (x *Extension) SetGrepBackend(name string) error { return x.grep.switchTo(name, x.newGrepper) }

// GrepBackend names grep's backend ("custom" for one given in the config).
func (x *Extension) GrepBackend() string { return x.grep.name() }

// CheckGlobBackend reports whether SetGlobBackend(name) would succeed,
// changing nothing.
func (x *Extension) CheckGlobBackend(name string) error { return x.glob.check(name, x.newGlobber) }

// SetGlobBackend switches glob to the backend registered as name:
// "native", "ripgrep", "fd" (see search.GlobBackends), or a program's own.
func (x *Extension) SetGlobBackend(name string) error { return x.glob.switchTo(name, x.newGlobber) }

// GlobBackend names glob's backend ("custom" for one given in the config).
func (x *Extension) GlobBackend() string { return x.glob.name() }

// backendSlot holds a swappable search backend and its name; calls read
// it once, when they start.
type backendSlot[T any] struct {
	mu    sync.RWMutex
	b     T
	label string
}

func (s *backendSlot[T]) get() T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.b
}

func (s *backendSlot[T]) name() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.label
}

func (s *backendSlot[T]) set(b T, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b, s.label = b, name
}

func (s *backendSlot[T]) check(name string, open func(string) (T, error)) error {
	_, err := open(name)
	return err
}

func (s *backendSlot[T]) switchTo(name string, open func(string) (T, error)) error {
	b, err := open(name)
	if err != nil {
		return err
	}
	s.set(b, name)
	return nil
}

// searchPath confines a search tool's path and returns it relative to the
// (symlink-resolved) root the backends search.
func (x *Extension) searchPath(p string) (string, error) {
	rel, err := x.resolve(p)
	if err != nil {
		return "", err
	}
	abs, err := x.confineLocal(rel)
	if err != nil {
		return "", err
	}
	r, err := filepath.Rel(x.realRoot, abs)
	if err != nil {
		return "", err
	}
	if r == "." {
		return "", nil
	}
	return filepath.ToSlash(r), nil
}

type globArgs struct {
	Pattern  string `json:"pattern"`
	Path     string `json:"path"`
	Limit    *int   `json:"limit"`
	Hidden   bool   `json:"hidden"`
	NoIgnore bool   `json:"no_ignore"`
}

func (x *Extension) globTool() core.Tool {
	return tool("glob",
		"Finds files by name with a glob pattern such as **/*.go. Paths are relative to the working directory and sorted, one per line; a path with a newline, a control character or bytes that are not UTF-8 is printed as a C-style quoted string, which the tools accept back. .gitignore rules and hidden files are respected unless no_ignore or hidden is set.",
		`{"type":"object","properties":{`+
			`"pattern":{"type":"string","description":"glob pattern (doublestar: *, **, ?, [abc], {a,b})"},`+
			`"path":{"type":"string","description":"directory to search (default the working directory), bare or quoted as the tools print it"},`+
			`"limit":{"type":"integer","minimum":1,"description":"most paths to return (default 500)"},`+
			`"hidden":{"type":"boolean","description":"include hidden files"},`+
			`"no_ignore":{"type":"boolean","description":"do not apply .gitignore rules"}},`+
			`"required":["pattern"],"additionalProperties":false}`,
		safe, true, x.globFiles)
}

func (x *Extension) globFiles(ctx context.Context, a globArgs) (any, error) {
	if !doublestar.ValidatePattern(a.Pattern) {
		return nil, fmt.Errorf("glob: pattern %q is not a valid glob", a.Pattern)
	}
	limit := defaultGlobLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 {
		return nil, fmt.Errorf("glob: limit %d must be 1 or more", limit)
	}
	dir, err := x.searchPath(a.Path)
	if err != nil {
		return nil, err
	}
	globber := x.glob.get()
	var shown []string
	paths := []any{}
	total, size, full := 0, 0, false
	err = globber.Glob(ctx, search.GlobRequest{Pattern: a.Pattern, Path: dir, Hidden: a.Hidden, NoIgnore: a.NoIgnore}, func(p string) bool {
		if ctx.Err() != nil {
			return false
		}
		total++
		if len(shown) < limit && !full {
			q := quotePath(p)
			if size += len(q) + 1; size > maxOutputBytes {
				full = true
			} else {
				shown = append(shown, q)
				paths = append(paths, q)
			}
		}
		return true
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	data := map[string]any{"paths": paths, "total": int64(total), "truncated": len(shown) < total}
	if total == 0 {
		return core.DataOutput{Text: fmt.Sprintf("no files match %s", a.Pattern), Data: data}, nil
	}
	s := strings.Join(shown, "\n") + "\n"
	switch {
	case full:
		s += fmt.Sprintf("[showing the first %d of %d matches, %d bytes of output at most; narrow the pattern or search a subdirectory]\n", len(shown), total, maxOutputBytes)
	case total > limit:
		s += fmt.Sprintf("[showing the first %d of %d matches; narrow the pattern or raise limit]\n", limit, total)
	}
	return core.DataOutput{Text: s, Data: data}, nil
}

type grepArgs struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	Glob          string `json:"glob"`
	Type          string `json:"type"`
	OutputMode    string `json:"output_mode"`
	IgnoreCase    bool   `json:"ignore_case"`
	LineNumbers   *bool  `json:"line_numbers"`
	Context       *int   `json:"context"`
	BeforeContext *int   `json:"before_context"`
	AfterContext  *int   `json:"after_context"`
	Multiline     bool   `json:"multiline"`
	HeadLimit     *int   `json:"head_limit"`
	Offset        *int   `json:"offset"`
	Hidden        bool   `json:"hidden"`
	NoIgnore      bool   `json:"no_ignore"`
}

func (x *Extension) grepTool() core.Tool {
	return tool("grep",
		"Searches file contents with a regular expression (RE2 syntax). output_mode: files_with_matches (default: paths), content (path:line:text, context lines path-line-text) or count (path:N). Results are sorted by path then line; head_limit (default 500) and offset page through them. Paths are printed as glob prints them. Files the session treats as secrets are never searched.",
		`{"type":"object","properties":{`+
			`"pattern":{"type":"string","description":"regular expression (RE2)"},`+
			`"path":{"type":"string","description":"file or directory to search (default the working directory), bare or quoted as the tools print it"},`+
			`"glob":{"type":"string","description":"only files matching this glob, e.g. *.go or src/**/*.ts"},`+
			`"type":{"type":"string","description":"only files of this type, e.g. go, py, js"},`+
			`"output_mode":{"type":"string","enum":["content","files_with_matches","count"]},`+
			`"ignore_case":{"type":"boolean"},`+
			`"line_numbers":{"type":"boolean","description":"show line numbers in content mode (default true)"},`+
			`"context":{"type":"integer","minimum":0,"description":"lines of context before and after each match"},`+
			`"before_context":{"type":"integer","minimum":0},`+
			`"after_context":{"type":"integer","minimum":0},`+
			`"multiline":{"type":"boolean","description":"let matches span lines"},`+
			`"head_limit":{"type":"integer","minimum":1,"description":"most output lines (default 500)"},`+
			`"offset":{"type":"integer","minimum":0,"description":"output lines to skip first"},`+
			`"hidden":{"type":"boolean","description":"search hidden files"},`+
			`"no_ignore":{"type":"boolean","description":"do not apply .gitignore rules"}},`+
			`"required":["pattern"],"additionalProperties":false}`,
		safe, true, x.grepFiles)
}

func (x *Extension) grepFiles(ctx context.Context, a grepArgs) (any, error) {
	mode := a.OutputMode
	if mode == "" {
		mode = "files_with_matches"
	}
	if mode != "content" && mode != "files_with_matches" && mode != "count" {
		return nil, fmt.Errorf("grep: output_mode %q is not content, files_with_matches or count", mode)
	}
	limit, offset := defaultHeadLimit, 0
	if a.HeadLimit != nil {
		limit = *a.HeadLimit
	}
	if a.Offset != nil {
		offset = *a.Offset
	}
	if limit < 1 || offset < 0 {
		return nil, fmt.Errorf("grep: got head_limit %d and offset %d, want head_limit >= 1 and offset >= 0", limit, offset)
	}
	before, after := 0, 0
	if a.Context != nil {
		before, after = *a.Context, *a.Context
	}
	if a.BeforeContext != nil {
		before = *a.BeforeContext
	}
	if a.AfterContext != nil {
		after = *a.AfterContext
	}
	if before < 0 || after < 0 {
		return nil, fmt.Errorf("grep: context lines must be 0 or more")
	}
	if mode != "content" {
		before, after = 0, 0
	}
	numbers := a.LineNumbers == nil || *a.LineNumbers
	p, err := x.searchPath(a.Path)
	if err != nil {
		return nil, err
	}
	req := search.GrepRequest{Pattern: a.Pattern, Path: p, Glob: a.Glob, Exclude: slices.Concat(x.cfg.SecretFiles, core.SecretFiles(ctx)), Type: a.Type, IgnoreCase: a.IgnoreCase,
		Multiline: a.Multiline, Before: before, After: after, Hidden: a.Hidden, NoIgnore: a.NoIgnore,
		Mode: grepMode(mode), Limit: grepFileLimit(offset, limit)}

	// Results are counted for offset and head_limit; "--" lines between
	// context groups (as rg prints them) are not.
	out := newGrepOutput(mode, offset, limit, before > 0 || after > 0, numbers, core.OutputStream(ctx))
	stopped := func() bool { return ctx.Err() != nil }
	grepper := x.grep.get()
	err = grepper.Grep(ctx, req, func(f search.FileResult) bool {
		return !stopped() && out.file(f, stopped)
	})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && out.werr != nil {
		err = fmt.Errorf("writing the output: %w", out.werr)
	}
	if err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	return out.finish(a.Pattern)
}

// grepMode is the backend's mode for an output_mode: what it must read of
// each file.
func grepMode(outputMode string) search.Mode {
	switch outputMode {
	case "files_with_matches":
		return search.ModeFiles
	case "count":
		return search.ModeCount
	}
	return search.ModeContent
}

// grepFileLimit is the most files grep takes for a page of head_limit
// results after offset: every file holds at least one result, and the one
// after the page is taken to learn that there are more (0: no limit, when
// the sum does not fit in an int).
func grepFileLimit(offset, limit int) int {
	if offset > math.MaxInt-limit-1 {
		return 0
	}
	return offset + limit + 1
}

// grepData is grep's result for scripts: the shown results under the key
// of their mode (paths, counts, or lines with context lines marked
// "match": false), the offset they start at, and where the next page
// starts, with total the number of results; next_offset is None on the
// last page, and total is None on any other (grep stops reading there).
func grepData(mode string, items []any, offset, shown, seen int, more bool) map[string]any {
	key := map[string]string{"files_with_matches": "paths", "count": "counts", "content": "lines"}[mode]
	d := map[string]any{"mode": mode, key: items, "offset": int64(offset), "truncated": more,
		"next_offset": nil, "total": int64(seen)}
	if more {
		d["next_offset"], d["total"] = int64(offset+shown), nil
	}
	return d
}
