package rules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// DefaultMaxBytes is the size cap of the prompt section when
// Config.MaxBytes is zero.
const DefaultMaxBytes = 32 << 10

// fileNames are the rule files looked for in each directory, in the order
// they appear in the prompt.
var fileNames = []string{"AGENTS.md", "CLAUDE.md"}

// Config configures the rules extension. The zero value of every field is
// the default.
type Config struct {
	// WorkDir is the directory the agent works in; "" is the current
	// directory.
	WorkDir string
	// Root is the project root: rule files are collected from Root down to
	// WorkDir, which must be inside it. "" means the nearest ancestor of
	// WorkDir (WorkDir included) holding .git, else WorkDir itself.
	Root string
	// MaxBytes caps the size of the prompt section, headers included.
	// 0 means DefaultMaxBytes; a negative value means no cap.
	MaxBytes int
	// Warn receives warnings: files left out because of the cap, symbolic
	// links that lead out of Root. nil writes them to standard error.
	Warn func(msg string)
}

// Extension contributes a project's rule files to the system prompt. Create
// it with New. Its methods are safe to call concurrently; the files are read
// once, by Init or by the first call to SystemPrompt.
type Extension struct {
	cfg Config

	once   sync.Once
	err    error
	root   string
	files  []string
	prompt string
}

var (
	_ core.Extension      = (*Extension)(nil)
	_ core.Initializer    = (*Extension)(nil)
	_ core.PromptProvider = (*Extension)(nil)
)

// New returns the rules extension for cfg. Nothing is read until Init or
// SystemPrompt.
func New(cfg Config) *Extension {
	return &Extension{cfg: cfg}
}

// Name is "rules".
func (x *Extension) Name() string { return "rules" }

// Init finds the project root and reads the rule files. It fails when the
// working directory is not a directory, when it is not inside Root, or when
// a rule file exists but cannot be read; the error names the path.
func (x *Extension) Init(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x.once.Do(x.load)
	return x.err
}

// SystemPrompt returns the rule files, root first, each under a header
// naming its path relative to the root, separated by blank lines; "" when
// there are none. If Init was not called and reading fails, the failure is
// reported through Warn and the section is empty.
func (x *Extension) SystemPrompt() string {
	x.once.Do(func() {
		x.load()
		if x.err != nil {
			x.warn(x.err.Error() + "; the prompt holds no project rules")
		}
	})
	if x.err != nil {
		return ""
	}
	return x.prompt
}

// Root returns the absolute project root, once the files have been read.
func (x *Extension) Root() string {
	x.once.Do(x.load)
	return x.root
}

// Files returns the slash-separated paths, relative to Root, of the rule
// files in the prompt, root first.
func (x *Extension) Files() []string {
	x.once.Do(x.load)
	return append([]string(nil), x.files...)
}

func (x *Extension) warn(msg string) {
	if x.cfg.Warn != nil {
		x.cfg.Warn(msg)
		return
	}
	fmt.Fprintf(os.Stderr, "warning: %s\n", msg)
}

// ruleFile is one rule file found on the way from the root to WorkDir.
type ruleFile struct {
	rel     string // slash-separated, relative to the root
	depth   int    // 0 for the root directory
	order   int    // index in fileNames
	section string // header and contents
	tooBig  bool   // larger than the cap on its own
}

func (x *Extension) load() {
	x.err = x.collect()
}

func (x *Extension) collect() error {
	wd := x.cfg.WorkDir
	if wd == "" {
		wd = "."
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return fmt.Errorf("rules: working directory: %w", err)
	}
	if fi, err := os.Stat(wd); err != nil {
		return fmt.Errorf("rules: working directory: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("rules: working directory %s is not a directory", wd)
	}
	var root string
	if x.cfg.Root == "" {
		root = findRoot(wd)
	} else if root, err = filepath.Abs(x.cfg.Root); err != nil {
		return fmt.Errorf("rules: root: %w", err)
	}
	rel, ok := within(root, wd)
	if !ok {
		// The two may name the same tree through different symbolic links.
		rr, err1 := filepath.EvalSymlinks(root)
		rw, err2 := filepath.EvalSymlinks(wd)
		if err1 == nil && err2 == nil {
			if rel, ok = within(rr, rw); ok {
				root, wd = rr, rw
			}
		}
		if !ok {
			return fmt.Errorf("rules: working directory %s is not inside the root %s", wd, root)
		}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("rules: root: %w", err)
	}
	x.root = root

	limit := x.cfg.MaxBytes
	if limit == 0 {
		limit = DefaultMaxBytes
	}

	dirs := []string{root}
	if rel != "." {
		d := root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, part)
			dirs = append(dirs, d)
		}
	}
	var found []ruleFile
	for depth, dir := range dirs {
		for order, name := range fileNames {
			f, ok, err := x.read(filepath.Join(dir, name), root, realRoot, limit)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			f.depth, f.order = depth, order
			found = append(found, f)
		}
	}
	kept := x.applyCap(found, limit)
	sections := make([]string, len(kept))
	for i, f := range kept {
		sections[i] = f.section
		x.files = append(x.files, f.rel)
	}
	x.prompt = strings.Join(sections, "\n\n")
	return nil
}

// read reads the rule file at path. ok is false when there is none, when it
// is empty, or when it is a symbolic link leading out of the root (with a
// warning).
func (x *Extension) read(path, root, realRoot string, limit int) (f ruleFile, ok bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, false, nil
	}
	if err != nil {
		return f, false, fmt.Errorf("rules: %w", err)
	}
	rel, _ := filepath.Rel(root, path)
	f.rel = filepath.ToSlash(rel)
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return f, false, fmt.Errorf("rules: cannot follow the symbolic link %s: %w", path, err)
		}
		if _, inside := within(realRoot, target); !inside {
			x.warn(fmt.Sprintf("rules: ignoring %s: it is a symbolic link to %s, outside the project root %s", f.rel, target, root))
			return f, false, nil
		}
	}
	file, err := os.Open(path)
	if err != nil {
		return f, false, fmt.Errorf("rules: %w", err)
	}
	defer file.Close()
	if st, err := file.Stat(); err != nil {
		return f, false, fmt.Errorf("rules: %w", err)
	} else if !st.Mode().IsRegular() {
		return f, false, fmt.Errorf("rules: cannot read %s: not a regular file", path)
	}
	var r io.Reader = file
	if limit > 0 {
		r = io.LimitReader(file, int64(limit)+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return f, false, fmt.Errorf("rules: cannot read %s: %w", path, unwrapPathError(err))
	}
	text := strings.TrimSpace(strings.TrimPrefix(string(data), "\uFEFF"))
	if text == "" {
		return f, false, nil
	}
	f.section = "# Rules from " + f.rel + "\n\n" + text
	f.tooBig = limit > 0 && (len(data) > limit || len(f.section) > limit)
	return f, true, nil
}

// applyCap leaves out whole files until the joined sections fit in limit:
// first any file larger than the limit on its own, then the files farthest
// from the working directory (in one directory, CLAUDE.md before
// AGENTS.md). It warns once, naming every file left out.
func (x *Extension) applyCap(found []ruleFile, limit int) []ruleFile {
	if limit < 0 || len(found) == 0 {
		return found
	}
	dropped := make([]bool, len(found))
	var names []string
	total := -2
	for i, f := range found {
		if f.tooBig {
			dropped[i] = true
			names = append(names, fmt.Sprintf("%s (larger than the cap on its own)", f.rel))
			continue
		}
		total += len(f.section) + 2
	}
	// found is ordered by depth, then by fileNames; walk it farthest first,
	// taking the later name of a directory first.
	for start := 0; start < len(found) && total > limit; {
		end := start
		for end < len(found) && found[end].depth == found[start].depth {
			end++
		}
		for i := end - 1; i >= start && total > limit; i-- {
			if dropped[i] {
				continue
			}
			dropped[i] = true
			total -= len(found[i].section) + 2
			names = append(names, found[i].rel)
		}
		start = end
	}
	if len(names) == 0 {
		return found
	}
	x.warn(fmt.Sprintf("rules: left out %s: the project rules exceed the cap of %d bytes (MaxBytes); the files nearest the working directory are kept",
		strings.Join(names, ", "), limit))
	var kept []ruleFile
	for i, f := range found {
		if !dropped[i] {
			kept = append(kept, f)
		}
	}
	return kept
}

// findRoot returns the nearest ancestor of dir (dir included) holding .git,
// or dir when there is none.
func findRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// within reports whether path is parent or lies below it (both absolute and
// clean), and returns path relative to parent.
func within(parent, path string) (string, bool) {
	rel, err := filepath.Rel(parent, path)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
