package main

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/sandbox"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/web"
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
	cfg := tools.ExtensionConfig{WorkingDir: dir, Runners: map[string]tools.CodeRunner{}}
	cfg.FetchPolicy = web.Policy{AllowPrivate: o.fetchPrivate,
		PrivateHint: "start agentsh with --fetch-allow-private to allow loopback and private addresses"}
	sbCfg := sandbox.Config{
		MaxSteps: o.maxSteps,
		MemoryHint: func(limit int64) string {
			return fmt.Sprintf("raise it with config(%s = %d)", memorySetting, min(2*limit>>20, maxMemoryMiB))
		},
	}
	if o.execBackend == "bwrap" {
		bw, err := process.NewBubblewrapExec(dir)
		if err != nil {
			return fmt.Errorf("--exec-backend bwrap: %w", err)
		}
		cfg.Exec = bw
		sbCfg.Bubblewrap = bw
	}
	// run_code's Starlark and Lua run in child processes of agentsh (main
	// calls sandbox.Init) under kernel limits.
	sb := sandbox.New(sbCfg)
	for _, lang := range sandbox.Languages() {
		cfg.Runners[lang] = sb.Runner(lang)
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
	host.AddSetting(memorySetting, memoryLimitSetting(sb))
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

// memorySetting is the config() key of run_code's memory limit, in MiB.
const memorySetting = "run_code_memory_mib"

// Bounds of run_code_memory_mib.
const (
	minMemoryMiB = 16
	maxMemoryMiB = 1 << 20
)

// memoryLimitSetting makes the memory limit of run_code's Starlark and Lua
// children a config() setting, in MiB.
func memoryLimitSetting(sb *sandbox.Sandbox) script.Setting {
	return script.Setting{
		Get: func() any { return sb.Memory() >> 20 },
		Check: func(v any) error {
			n, ok := v.(int64)
			if !ok || n < minMemoryMiB || n > maxMemoryMiB {
				return fmt.Errorf("got %v, want a size in MiB from %d to %d (the default is %d)", v, minMemoryMiB, maxMemoryMiB, process.DefaultMemory>>20)
			}
			return nil
		},
		Set: func(v any) { sb.SetMemory(v.(int64) << 20) },
	}
}
