package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
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
	box, err := a.installSandbox(host, dir)
	if err != nil {
		return err
	}
	cfg.Sandbox = box
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

// installSandbox sets up the sandbox of bash and run_code (DESIGN §13)
// for dir: the profiles by origin (--sandbox, config(sandbox = ...)), the
// backend (--sandbox-backend), the hosts they may reach (--allow-host,
// config(allow_hosts = [...])) and the secret files they cannot read
// (the defaults and config(secret_files = [...])).
func (a *app) installSandbox(host *script.Host, dir string) (*process.Sandbox, error) {
	o := a.opts
	box, err := process.NewSandbox(dir, process.SandboxConfig{Backend: o.sandboxBackend, AllowHosts: o.allowHosts})
	if err != nil {
		return nil, fmt.Errorf("--workdir %s: %w", dir, err)
	}
	if o.sandboxBackend != "" && o.sandboxBackend != "auto" {
		if err := box.Unavailable(); err != nil {
			return nil, fmt.Errorf("--sandbox-backend %s: %w; choose --sandbox-backend auto, or --sandbox off", o.sandboxBackend, err)
		}
	}
	a.closers = append(a.closers, box.Close)
	ex := host.Executor()
	sb := executor.Sandboxing{Person: o.sandbox, Automated: o.sandbox,
		Backend: func() (string, error) { return box.Backend(), box.Unavailable() }}
	ex.SetSandboxing(sb)
	host.AddSetting("sandbox", script.Setting{
		Get: func() any { return string(ex.Sandboxing().Automated) },
		Check: func(v any) error {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("want \"read-only\", \"workspace\" or \"off\", got %v", v)
			}
			_, err := core.ParseSandbox(s)
			return err
		},
		Set: func(v any) {
			s := ex.Sandboxing()
			s.Person, _ = core.ParseSandbox(v.(string))
			s.Automated = s.Person
			ex.SetSandboxing(s)
		},
	})
	host.AddSetting("allow_hosts", script.Setting{
		Get: func() any { return stringList(box.Config().AllowHosts) },
		Check: func(v any) error {
			_, err := hostList(v)
			return err
		},
		Set: func(v any) {
			hosts, _ := hostList(v)
			_ = box.SetAllowHosts(hosts)
		},
	})
	if prev, ok := host.Setting("secret_files"); ok {
		host.AddSetting("secret_files", script.Setting{Get: prev.Get, Check: prev.Check, Set: func(v any) {
			prev.Set(v)
			_ = box.SetSecrets(append(slices.Clone(process.DefaultSecrets), ex.SecretFiles()...))
		}})
	}
	return box, nil
}

// hostList reads allow_hosts: a list of host names.
func hostList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of host names such as [\"proxy.golang.org\", \"*.github.com\"], got %v", v)
	}
	hosts := make([]string, 0, len(list))
	for _, e := range list {
		h, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want host names as strings, got %v", e)
		}
		if err := process.CheckHost(h); err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func stringList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
