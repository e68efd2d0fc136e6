package main

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/lua"
	sl "github.com/agentsh/agentsh/script/starlark"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/process"
)

// installTools registers the built-in tools for --workdir (default: the
// current directory) with the backends the flags chose, and makes the
// search backends settable from scripts with config().
func (a *app) installTools(host *script.Host) error {
	o := a.opts
	dir := o.workdir
	if dir == "" {
		dir = "."
	}
	cfg := tools.ExtensionConfig{
		WorkingDir: dir,
		Runners: map[string]tools.CodeRunner{
			"starlark": func(ctx context.Context, code string) (string, error) {
				return sl.RunSandboxed(ctx, code, o.maxSteps)
			},
			"lua": lua.RunSandboxed,
		},
	}
	if o.execBackend == "bwrap" {
		bw, err := process.NewBubblewrapExec(dir)
		if err != nil {
			return fmt.Errorf("--exec-backend bwrap: %w", err)
		}
		cfg.Exec = bw
	}
	ext := tools.NewExtension(cfg)
	if err := host.Executor().Install(context.Background(), ext); err != nil {
		return fmt.Errorf("--workdir %s: %w", dir, err)
	}
	if o.grepBackend != "" {
		if err := ext.SetGrepBackend(o.grepBackend); err != nil {
			return fmt.Errorf("--grep-backend: %w", err)
		}
	}
	if o.globBackend != "" {
		if err := ext.SetGlobBackend(o.globBackend); err != nil {
			return fmt.Errorf("--glob-backend: %w", err)
		}
	}
	host.AddSetting("grep_backend", backendSetting(ext.GrepBackend, ext.CheckGrepBackend, ext.SetGrepBackend))
	host.AddSetting("glob_backend", backendSetting(ext.GlobBackend, ext.CheckGlobBackend, ext.SetGlobBackend))
	return nil
}

// backendSetting makes a search backend a config() setting; a missing
// program is reported before anything changes.
func backendSetting(get func() string, check, set func(string) error) script.Setting {
	return script.Setting{
		Get: func() any { return get() },
		Check: func(v any) error {
			name, ok := v.(string)
			if !ok {
				return fmt.Errorf("want a backend name, got %v", v)
			}
			return check(name)
		},
		Set: func(v any) { _ = set(v.(string)) },
	}
}
