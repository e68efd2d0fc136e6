package hookadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ClaudeCodeSettings is the settings file agentsh hook install writes:
// the project's .claude/settings.json under dir, or the user's
// ~/.claude/settings.json under home.
func ClaudeCodeSettings(project bool, dir, home string) string {
	if project {
		return filepath.Join(dir, ".claude", "settings.json")
	}
	return filepath.Join(home, ".claude", "settings.json")
}

// ClaudeCodeTimeout is the timeout, in seconds, of the installed entries:
// longer than the hook's own deadline, so that agentsh answers (and
// blocks) before Claude Code gives up on it.
const ClaudeCodeTimeout = 60

// InstallClaudeCode merges hook entries that run command for PreToolUse,
// PostToolUse and UserPromptSubmit into the settings file at path, keeping
// every setting and hook already there. An event that already runs
// command is left alone, so installing twice changes nothing. It reports
// whether the file changed; a file that is not a JSON object is an error
// and stays as it was.
func InstallClaudeCode(path, command string) (bool, error) {
	settings := map[string]json.RawMessage{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case len(bytes.TrimSpace(b)) > 0:
		if err := json.Unmarshal(b, &settings); err != nil || settings == nil {
			return false, fmt.Errorf("%s is not a JSON object (%v); fix it, then install again", path, err)
		}
	}
	hooks := map[string]json.RawMessage{}
	if raw, ok := settings["hooks"]; ok {
		if err := json.Unmarshal(raw, &hooks); err != nil || hooks == nil {
			return false, fmt.Errorf("%s: \"hooks\" is not an object; fix it, then install again", path)
		}
	}
	changed := false
	for _, event := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"} {
		var groups []json.RawMessage
		if raw, ok := hooks[event]; ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return false, fmt.Errorf("%s: hooks.%s is not a list; fix it, then install again", path, event)
			}
		}
		if runs(groups, command) {
			continue
		}
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": ClaudeCodeTimeout}}}
		if event != "UserPromptSubmit" {
			group["matcher"] = "*"
		}
		g, _ := json.Marshal(group)
		groups = append(groups, g)
		hooks[event], _ = json.Marshal(groups)
		changed = true
	}
	if !changed {
		return false, nil
	}
	settings["hooks"], _ = json.Marshal(hooks)
	out, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return false, err
	}
	return true, writeAtomic(path, append(out, '\n'))
}

// runs reports whether a matcher group of groups runs command.
func runs(groups []json.RawMessage, command string) bool {
	for _, g := range groups {
		var group struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &group) != nil {
			continue
		}
		for _, h := range group.Hooks {
			if strings.TrimSpace(h.Command) == strings.TrimSpace(command) {
				return true
			}
		}
	}
	return false
}

// writeAtomic replaces path by rename, keeping its mode.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ShellQuote quotes s for a POSIX shell, as the command of a hook entry.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
