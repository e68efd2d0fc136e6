package script

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/workpath"
)

// Setting is one name that config() reads and changes. The executor's
// settings (mode, concurrency, validate_arguments, permissions, offload)
// are settings,
// and whoever wires other parts in adds theirs (the built-in tools add
// grep_backend and glob_backend).
type Setting struct {
	// Get returns the current value as a JSON shape.
	Get func() any
	// Check reports whether v would be accepted, without changing anything.
	Check func(v any) error
	// Set applies a value that Check accepted.
	Set func(v any)
}

// AddSetting makes name configurable with config(name = value). A name
// that is already taken is replaced.
func (h *Host) AddSetting(name string, s Setting) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	h.settings[name] = s
}

// Setting returns the setting named name, for a program that wraps one
// (adds to what its Set does) before it adds it again.
func (h *Host) Setting(name string) (Setting, bool) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	s, ok := h.settings[name]
	return s, ok
}

// Config applies the given settings and returns all of them. It is all or
// nothing: every value is checked before any is applied, so a bad update
// changes nothing. An unknown name is an error that lists the known ones.
func (h *Host) Config(update map[string]any) (map[string]any, error) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	names := make([]string, 0, len(update))
	for name := range update {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, ok := h.settings[name]
		if !ok {
			return nil, fmt.Errorf("unknown setting %q; the settings are %s", name, strings.Join(h.settingNames(), ", "))
		}
		if err := s.Check(update[name]); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, name := range names {
		h.settings[name].Set(update[name])
	}
	cur := make(map[string]any, len(h.settings))
	for name, s := range h.settings {
		cur[name] = s.Get()
	}
	return cur, nil
}

func (h *Host) settingNames() []string {
	names := make([]string, 0, len(h.settings))
	for n := range h.settings {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// addCoreSettings registers the executor's settings.
func (h *Host) addCoreSettings() {
	ex := h.exec
	h.settings["mode"] = Setting{
		Get: func() any { return ex.Mode().String() },
		Check: func(v any) error {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("want \"serial\", \"parallel\" or \"mixed\", got %s", describe(v))
			}
			_, err := executor.ParseMode(s)
			return err
		},
		Set: func(v any) {
			m, _ := executor.ParseMode(v.(string))
			ex.SetMode(m)
		},
	}
	h.settings["concurrency"] = Setting{
		Get: func() any { return int64(ex.Concurrency()) },
		Check: func(v any) error {
			n, ok := v.(int64)
			if !ok || n < 0 || n > 1<<20 {
				return fmt.Errorf("got %s, want 0 (the default, %d at a time) or more", display(v), executor.DefaultConcurrency)
			}
			return nil
		},
		Set: func(v any) { _ = ex.SetConcurrency(int(v.(int64))) },
	}
	h.settings["validate_arguments"] = Setting{
		Get: func() any { return ex.ValidateArguments() },
		Check: func(v any) error {
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("want True or False, got %s", describe(v))
			}
			return nil
		},
		Set: func(v any) { ex.SetValidateArguments(v.(bool)) },
	}
	h.settings["secret_files"] = Setting{
		Get: func() any { return stringValues(ex.SecretFiles()) },
		Check: func(v any) error {
			ps, err := secretPatterns(v)
			if err != nil {
				return err
			}
			return workpath.CheckPatterns(ps)
		},
		Set: func(v any) {
			ps, _ := secretPatterns(v)
			_ = ex.SetSecretFiles(ps)
		},
	}
	h.settings["permissions"] = Setting{
		Get: func() any { return ex.Permissions().String() },
		Check: func(v any) error {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("want \"default\", \"allow-all\" or \"deny-unlisted\", got %s", describe(v))
			}
			_, err := executor.ParsePermissions(s)
			return err
		},
		Set: func(v any) {
			p, _ := executor.ParsePermissions(v.(string))
			_ = ex.SetPermissions(p) // checked above
		},
	}
	h.settings["offload"] = Setting{
		Get: func() any { return int64(h.threshold) },
		Check: func(v any) error {
			n, ok := v.(int64)
			if !ok || n < 0 || n > 1<<40 {
				return fmt.Errorf("got %s, want 0 (off) or a size in bytes", display(v))
			}
			// A foreign artifact_read is the one way turning offload on can
			// fail: find out now, while nothing has changed.
			if t := ex.Registry().GetTool(executor.ArtifactReadTool); t != nil && n > 0 && h.threshold == 0 && h.store != nil {
				return fmt.Errorf("a tool named %s is already registered; unregister it to let offload register its own", executor.ArtifactReadTool)
			}
			return nil
		},
		Set: func(v any) {
			h.threshold = int(v.(int64))
			_ = ex.SetArtifactOffload(h.store, h.threshold) // checked above
		},
	}
}

// display renders a value for a message: JSON, or its description.
func display(v any) string {
	if CheckValue(v, "") == nil {
		return Quote(v)
	}
	return describe(v)
}

// secretPatterns reads secret_files: a list of glob patterns.
func secretPatterns(v any) ([]string, error) {
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("want a list of glob patterns such as [\"*.pem\", \".env\", \".ssh/\"], got %s", describe(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("pattern %d: want a string, got %s", i, describe(e))
		}
		out[i] = s
	}
	return out, nil
}
