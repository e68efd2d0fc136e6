package agentsh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/policydiff"
)

// PolicyDiff says what agentsh policy diff compares: two policy sets
// over the calls recorded in Sources (see package policydiff).
type PolicyDiff struct {
	// Old and New are each a policy file (.star or .lua) or a directory
	// of them (see LoadPolicySet).
	Old, New string
	// Sources are audit logs, session files or ids, recordings, or
	// directories of them.
	Sources []string
	// Config composes both sets' shells, as for --load: the built-in
	// tools, permissions, sandbox. Its WorkDir is the working directory
	// of calls recorded without one. What the policies print is
	// discarded.
	Config Config
	// Coverage counts the calls each hook decided (Report.Coverage).
	Coverage bool
}

// PolicySetError is a policy set that cannot be loaded.
type PolicySetError struct {
	Side string // "OLD" or "NEW"
	Path string
	Err  error
}

func (e *PolicySetError) Error() string {
	return fmt.Sprintf("the %s policies (%s): %v", e.Side, e.Path, e.Err)
}

func (e *PolicySetError) Unwrap() error { return e.Err }

// DiffPolicies re-decides the recorded calls under d.Old and d.New and
// reports the calls whose decision changed. A source that cannot be read
// is a *policydiff.InputError, a policy set that cannot be loaded a
// *PolicySetError; the report's Changed says whether anything changed.
func DiffPolicies(ctx context.Context, d PolicyDiff) (*policydiff.Report, error) {
	corpus, err := policydiff.Read(d.Sources)
	if err != nil {
		return nil, err
	}
	var sides [2]policydiff.Policy
	var workdir string
	for i, path := range []string{d.Old, d.New} {
		side := [2]string{"OLD", "NEW"}[i]
		sh, err := LoadPolicySet(ctx, path, d.Config)
		if err != nil {
			return nil, &PolicySetError{Side: side, Path: path, Err: err}
		}
		defer sh.Close()
		ex := sh.Executor()
		sides[i] = policydiff.Policy{Name: path, Decider: ex}
		for _, h := range ex.BeforeHooks() {
			sides[i].Hooks = append(sides[i].Hooks, policydiff.Hook{Name: h.Name, Source: h.Source})
		}
		workdir = ex.WorkDir()
	}
	r, err := policydiff.Diff(ctx, sides[0], sides[1], corpus, policydiff.Options{WorkDir: workdir, Coverage: d.Coverage})
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("the hooks took longer than the time allowed (%w); allow more (--timeout), or bound each hook (--max-steps N: a hook past it fails, a deny)", err)
	}
	return r, err
}

// LoadPolicySet composes a shell from cfg (what it prints discarded) and
// loads path into it, as --load does: a .star or .lua file, or the .star
// and .lua files directly in a directory, in name order, their tests
// (*_test.star, *_test.lua) left out. The caller closes the shell.
func LoadPolicySet(ctx context.Context, path string, cfg Config) (*Shell, error) {
	files, err := policyFiles(path)
	if err != nil {
		return nil, err
	}
	cfg.Output = io.Discard
	cfg.SaveSessions = false
	sh, err := New(WithConfig(cfg))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := sh.Load(ctx, f); err != nil {
			sh.Close()
			return nil, err
		}
	}
	return sh, nil
}

// policyFiles lists the files a policy set loads.
func policyFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w; give a policy file (.star or .lua) or a directory of them", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("%w; give a directory that can be read", err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if (ext != ".star" && ext != ".lua") || strings.HasSuffix(strings.TrimSuffix(name, ext), "_test") || e.IsDir() {
			continue
		}
		files = append(files, filepath.Join(path, name))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .star or .lua policy file; give a policy file or a directory of them", path)
	}
	sort.Strings(files)
	return files, nil
}
