package agentsh

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

// installTools registers the built-in tools for the workdir with the
// backends the Config chose, and makes the search backends, the sandbox
// and run_code's memory limit settable from scripts with config().
func (s *Shell) installTools() error {
	cfg, dir := s.cfg, s.cfg.WorkDir
	tc := tools.ExtensionConfig{WorkingDir: dir, Runners: map[string]tools.CodeRunner{}}
	tc.FetchPolicy = web.Policy{AllowPrivate: cfg.FetchAllowPrivate,
		PrivateHint: "start agentsh with --fetch-allow-private (in Go: Config.FetchAllowPrivate) to allow loopback and private addresses"}
	box, err := s.installSandbox(dir)
	if err != nil {
		return err
	}
	tc.Sandbox = box
	// run_code's Starlark and Lua run in child processes of this program
	// (Init) under kernel limits.
	sb := sandbox.New(sandbox.Config{
		MaxSteps: cfg.MaxSteps,
		MemoryHint: func(limit int64) string {
			return fmt.Sprintf("raise it with config(%s = %d)", memorySetting, min(2*limit>>20, maxMemoryMiB))
		},
	})
	for _, lang := range sandbox.Languages() {
		tc.Runners[lang] = sb.Runner(lang)
	}
	ext := tools.NewExtension(tc)
	if err := s.exec.Install(context.Background(), ext); err != nil {
		return &OptionError{Option: "WithWorkDir", Value: dir, Err: err}
	}
	if cfg.GrepBackend != "" {
		if err := ext.SetGrepBackend(cfg.GrepBackend); err != nil {
			return &OptionError{Option: "WithGrepBackend", Err: err}
		}
	}
	if cfg.GlobBackend != "" {
		if err := ext.SetGlobBackend(cfg.GlobBackend); err != nil {
			return &OptionError{Option: "WithGlobBackend", Err: err}
		}
	}
	s.host.AddSetting(memorySetting, memoryLimitSetting(sb))
	s.host.AddSetting("grep_backend", backendSetting(ext.GrepBackend, ext.CheckGrepBackend, ext.SetGrepBackend))
	s.host.AddSetting("glob_backend", backendSetting(ext.GlobBackend, ext.CheckGlobBackend, ext.SetGlobBackend))
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

// installSandbox sets up the sandbox of bash and run_code for dir: the
// profiles by origin (Config.Sandbox, config(sandbox = ...)), the backend
// (Config.SandboxBackend), the hosts they may reach (Config.AllowHosts,
// config(allow_hosts = [...])) and the secret files they cannot read (the
// defaults and config(secret_files = [...])).
func (s *Shell) installSandbox(dir string) (*process.Sandbox, error) {
	cfg := s.cfg
	for _, h := range cfg.AllowHosts {
		if err := process.CheckHost(h); err != nil {
			return nil, &OptionError{Option: "WithAllowHosts", Err: err}
		}
	}
	if b := cfg.SandboxBackend; b != "" && !slices.Contains(process.Backends, b) {
		return nil, optionErrorf("WithSandboxBackend", "got %q, want auto, bwrap or landlock", b)
	}
	if cfg.Sandbox != "" {
		if _, err := core.ParseSandbox(string(cfg.Sandbox)); err != nil {
			return nil, &OptionError{Option: "WithSandbox", Err: err}
		}
	}
	box, err := process.NewSandbox(dir, process.SandboxConfig{Backend: cfg.SandboxBackend, AllowHosts: cfg.AllowHosts})
	if err != nil {
		return nil, &OptionError{Option: "WithWorkDir", Value: dir, Err: err}
	}
	s.closers = append(s.closers, box.Close)
	if b := cfg.SandboxBackend; b != "" && b != "auto" {
		if err := box.Unavailable(); err != nil {
			return nil, &OptionError{Option: "WithSandboxBackend", Value: b, Err: err}
		}
	}
	ex := s.exec
	ex.SetSandboxing(executor.Sandboxing{Person: cfg.Sandbox, Automated: cfg.Sandbox,
		Backend: func() (string, error) { return box.Backend(), box.Unavailable() }})
	s.host.AddSetting("sandbox", script.Setting{
		Get: func() any { return string(ex.Sandboxing().Automated) },
		Check: func(v any) error {
			p, ok := v.(string)
			if !ok {
				return fmt.Errorf("want \"read-only\", \"workspace\" or \"off\", got %v", v)
			}
			_, err := core.ParseSandbox(p)
			return err
		},
		Set: func(v any) {
			sb := ex.Sandboxing()
			sb.Person, _ = core.ParseSandbox(v.(string))
			sb.Automated = sb.Person
			ex.SetSandboxing(sb)
		},
	})
	s.host.AddSetting("allow_hosts", script.Setting{
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
	if prev, ok := s.host.Setting("secret_files"); ok {
		s.host.AddSetting("secret_files", script.Setting{Get: prev.Get, Check: prev.Check, Set: func(v any) {
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
