package executor

import (
	"fmt"
	"os"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/workpath"
)

// The working directory: what a call's paths are relative to (see the
// canonical call, canonical.go).

// WithWorkDir sets the working directory calls' paths are relative to. Without
// it, the executor takes the working directory of the first installed
// extension that has one (core.WorkingDirProvider: the built-in tools),
// else the process's current directory when the first call needs it.
func WithWorkDir(dir string) Option {
	return func(e *Executor) { must(e.SetWorkDir(dir)) }
}

// SetWorkDir changes the working directory for calls that start from now
// on.
func (e *Executor) SetWorkDir(dir string) error {
	d, err := workpath.NewDir(dir)
	if err != nil {
		return fmt.Errorf("set work dir: %w", err)
	}
	e.workdir.Store(d)
	e.workdirSet.Store(true)
	return nil
}

// WorkDir returns the absolute working directory of calls (see WithWorkDir).
func (e *Executor) WorkDir() string { return e.dir().Path() }

// dir returns the working directory, settling the default on first use.
func (e *Executor) dir() *workpath.Dir {
	if d := e.workdir.Load(); d != nil {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "/"
	}
	d, _ := workpath.NewDir(wd)
	e.workdir.CompareAndSwap(nil, d)
	return e.workdir.Load()
}

// adoptWorkDir takes an installed extension's working directory unless
// one was set.
func (e *Executor) adoptWorkDir(x core.Extension) {
	p, ok := x.(core.WorkingDirProvider)
	if !ok || e.workdirSet.Load() {
		return
	}
	if d, err := workpath.NewDir(p.WorkingDir()); err == nil {
		e.workdir.Store(d)
		e.workdirSet.Store(true)
	}
}

// dirFor returns the directory call's paths are relative to: the call's
// own (a hook adapter's event), else the executor's, which the call then
// names.
func (e *Executor) dirFor(call *core.Call) (*workpath.Dir, error) {
	d := e.dir()
	if call.WorkDir == "" || call.WorkDir == d.Path() {
		call.WorkDir = d.Path()
		return d, nil
	}
	cd, err := workpath.NewDir(call.WorkDir)
	if err != nil {
		return nil, err
	}
	call.WorkDir = cd.Path()
	return cd, nil
}
