package hookadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsh/agentsh/bashcmd"
)

// ErrNoHome is the error of ScopeUser without a home directory.
var ErrNoHome = errors.New("no home directory")

// Scope chooses the settings file that Install and Uninstall change.
type Scope int

const (
	// ScopeProject is the project's file, under its directory.
	ScopeProject Scope = iota
	// ScopeUser is the user's file, under the home directory.
	ScopeUser
)

// installer says where an agent keeps command hooks and how an entry of
// agentsh's looks there.
type installer struct {
	project string // the settings file, relative to the project directory
	// user is the user's settings file: under $env when set, else under
	// home/dir.
	env, dir, file string
	events         []installEvent
	unit           time.Duration // of the entry's "timeout" field
	name           string        // the entry's "name" field, when the agent shows one
}

// installEvent is an event agentsh answers, with the matcher of its
// entry ("" for an event without tools); after marks the event that
// follows a tool call.
type installEvent struct {
	name, matcher string
	after         bool
}

var installers = map[string]installer{
	// code.claude.com/docs/en/settings, /hooks: matcher "*" is every tool.
	"claude-code": {project: ".claude/settings.json", env: "CLAUDE_CONFIG_DIR", dir: ".claude", file: "settings.json",
		events: []installEvent{{"PreToolUse", "*", false}, {"PostToolUse", "*", true}, {"UserPromptSubmit", "", false}}, unit: time.Second},
	// docs/hooks/reference.md of @google/gemini-cli: the matcher is a
	// regular expression, the timeout is in milliseconds.
	"gemini": {project: ".gemini/settings.json", dir: ".gemini", file: "settings.json",
		events: []installEvent{{"BeforeTool", ".*", false}, {"AfterTool", ".*", true}, {"BeforeAgent", "", false}}, unit: time.Millisecond, name: "agentsh"},
	// developers.openai.com/codex/hooks: hooks.json next to config.toml,
	// in $CODEX_HOME (default ~/.codex) or the project's .codex.
	"codex": {project: ".codex/hooks.json", env: "CODEX_HOME", dir: ".codex", file: "hooks.json",
		events: []installEvent{{"PreToolUse", "*", false}, {"PostToolUse", "*", true}, {"UserPromptSubmit", "", false}}, unit: time.Second},
}

func installerOf(agent string) (installer, error) {
	in, ok := installers[agent]
	if !ok {
		_, err := Lookup(agent)
		if err == nil {
			err = fmt.Errorf("agentsh cannot install hooks for %q", agent)
		}
		return installer{}, err
	}
	return in, nil
}

// SettingsPath is the file that holds agent's hook entries: for
// ScopeProject under dir (.claude/settings.json, .gemini/settings.json,
// .codex/hooks.json), for ScopeUser under the home directory, or under
// $CLAUDE_CONFIG_DIR and $CODEX_HOME when they are set, as the agents
// themselves read them.
func SettingsPath(agent string, scope Scope, dir string) (string, error) {
	in, err := installerOf(agent)
	if err != nil {
		return "", err
	}
	if scope == ScopeProject {
		return filepath.Join(dir, filepath.FromSlash(in.project)), nil
	}
	if in.env != "" {
		if d := os.Getenv(in.env); d != "" {
			return filepath.Join(d, in.file), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w for the user's settings (%v); set HOME, or install into the project's (ScopeProject)", ErrNoHome, err)
	}
	return filepath.Join(home, in.dir, in.file), nil
}

// Events lists the events of agent that Install gives an entry, in order.
func Events(agent string) []string { return Entry{}.Events(agent) }

// Entry is the hook entry Install writes for every event: the command
// (see Command) and how long the agent lets it run. NoAfter leaves out
// the event after a tool call (PostToolUse, AfterTool): policies without
// after hooks have nothing to do there, and the agent need not start
// agentsh a second time for every call. The command must then say so
// (agentsh hook AGENT --no-after-hooks), so that policies that gain an
// after hook block the call rather than miss it.
type Entry struct {
	Command string
	Timeout time.Duration
	NoAfter bool
}

// Events names the events e answers for agent, in the order Install
// writes them.
func (e Entry) Events(agent string) []string {
	var names []string
	for _, ev := range installers[agent].events {
		if !ev.after || !e.NoAfter {
			names = append(names, ev.name)
		}
	}
	return names
}

// Change is what Install or Uninstall did to a settings file.
type Change struct {
	// Path is the file, with symbolic links resolved.
	Path string
	// Removed counts the entries of agentsh's that were taken out
	// (replaced, for Install).
	Removed int
	// Wrote reports whether the file changed: false when it already held
	// exactly these entries, or (Uninstall) none.
	Wrote bool
}

// Install makes the settings file at path run e for every event agentsh
// answers, and nothing else of agentsh's: entries that run agentsh hook
// AGENT (IsEntry) are taken out first, wherever they are, so installing
// twice, or again with other policies, leaves one set. Every other
// setting and hook stays as it was, in its order. The file is replaced
// atomically, keeping its mode; a file that is not a JSON object, or
// whose hooks are not in the agent's format, is an error and stays as it
// was. Install is not safe for concurrent use on one file.
func Install(agent, path string, e Entry) (Change, error) {
	in, err := installerOf(agent)
	if err != nil {
		return Change{}, err
	}
	return edit(in, agent, path, &e)
}

// Uninstall takes agentsh's entries (IsEntry) out of the settings file at
// path, leaving everything else as Install does. A file that does not
// exist has none.
func Uninstall(agent, path string) (Change, error) {
	in, err := installerOf(agent)
	if err != nil {
		return Change{}, err
	}
	return edit(in, agent, path, nil)
}

// edit removes agentsh's entries from the file at path and, with e, adds
// e's.
func edit(in installer, agent, path string, e *Entry) (Change, error) {
	c := Change{Path: path}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		// A settings file linked from elsewhere (a dotfiles repository)
		// stays a link: the file it names changes.
		c.Path = p
	}
	old, mode, err := readSettings(c.Path)
	if err != nil {
		return c, err
	}
	if old == nil && e == nil {
		return c, nil
	}
	settings := object{}
	if len(bytes.TrimSpace(old)) > 0 {
		if settings, err = parseObject(old); err != nil {
			return c, fmt.Errorf("%s is not a JSON object (%v); fix it or move it away, then try again", c.Path, err)
		}
	}
	hooks := object{}
	if raw, ok := settings.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return c, fmt.Errorf("%s: \"hooks\" is not a JSON object (%v); fix it, then try again", c.Path, err)
		}
	}
	for _, ev := range in.events {
		if raw, ok := hooks.get(ev.name); ok && !isArray(raw) {
			return c, fmt.Errorf("%s: hooks.%s is not a list; fix it, then try again", c.Path, ev.name)
		}
	}
	installs := map[string]bool{}
	if e != nil {
		for _, ev := range in.events {
			installs[ev.name] = !ev.after || !e.NoAfter
		}
	}
	kept := object{}
	for _, m := range hooks {
		groups, removed, err := removeEntries(m.value, agent)
		if err != nil {
			return c, fmt.Errorf("%s: hooks.%s: %v", c.Path, m.key, err)
		}
		c.Removed += removed
		if removed > 0 && string(groups) == "[]" && !installs[m.key] {
			continue // only agentsh's entries made this event's list
		}
		if removed > 0 {
			m.value = groups
		}
		kept = append(kept, m)
	}
	hooks = kept
	if e != nil {
		for _, ev := range in.events {
			if !installs[ev.name] {
				continue
			}
			g, err := in.group(ev, *e)
			if err != nil {
				return c, err
			}
			var groups []json.RawMessage
			if raw, ok := hooks.get(ev.name); ok {
				if err := json.Unmarshal(raw, &groups); err != nil {
					return c, fmt.Errorf("%s: hooks.%s: %v", c.Path, ev.name, err)
				}
			}
			list, err := marshal(append(groups, g))
			if err != nil {
				return c, err
			}
			hooks.set(ev.name, list)
		}
	}
	if len(hooks) == 0 && c.Removed > 0 && e == nil {
		settings.del("hooks") // agentsh's entries were all it held
	} else if _, ok := settings.get("hooks"); ok || e != nil {
		h, err := marshal(hooks)
		if err != nil {
			return c, err
		}
		settings.set("hooks", h)
	}
	out, err := indent(settings)
	if err != nil {
		return c, err
	}
	if bytes.Equal(out, old) || (e == nil && c.Removed == 0) {
		return c, nil
	}
	if err := writeAtomic(c.Path, out, mode); err != nil {
		return c, fmt.Errorf("writing %s: %v", c.Path, err)
	}
	c.Wrote = true
	return c, nil
}

// MaxSettings bounds the settings file Install and Uninstall read.
const MaxSettings = 16 << 20

// readSettings reads the settings file at path, and its mode: nil and
// 0644 when there is none. Anything but a regular file (a FIFO, a
// directory) is an error.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o644, nil
	case err != nil:
		return nil, 0, err
	case !st.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s is not a regular file (%s); move it away, then try again", path, st.Mode().Type())
	case st.Size() > MaxSettings:
		return nil, 0, fmt.Errorf("%s is %d bytes, over the %d a settings file may have", path, st.Size(), MaxSettings)
	}
	b, err := os.ReadFile(path)
	return b, st.Mode().Perm(), err
}

func isArray(raw json.RawMessage) bool {
	var a []json.RawMessage
	return json.Unmarshal(raw, &a) == nil && a != nil
}

// removeEntries takes the handlers that run agentsh hook agent out of an
// event's list of matcher groups ({matcher, hooks: [handler...]}), and
// the groups left without a handler. A list or group in another shape is
// not agentsh's and stays as it is.
func removeEntries(raw json.RawMessage, agent string) (json.RawMessage, int, error) {
	var groups []json.RawMessage
	if json.Unmarshal(raw, &groups) != nil {
		return raw, 0, nil
	}
	removed := 0
	var kept []json.RawMessage
	for _, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			kept = append(kept, g)
			continue
		}
		hs, _ := group.get("hooks")
		var handlers []json.RawMessage
		if json.Unmarshal(hs, &handlers) != nil {
			kept = append(kept, g)
			continue
		}
		var left []json.RawMessage
		for _, h := range handlers {
			var handler struct{ Command any }
			if json.Unmarshal(h, &handler) == nil {
				if cmd, ok := handler.Command.(string); ok && IsEntry(cmd, agent) {
					removed++
					continue
				}
			}
			left = append(left, h)
		}
		switch {
		case len(left) == len(handlers):
			kept = append(kept, g)
		case len(left) > 0:
			hs, err := marshal(left)
			if err != nil {
				return nil, 0, err
			}
			group.set("hooks", hs)
			b, err := marshal(group)
			if err != nil {
				return nil, 0, err
			}
			kept = append(kept, b)
		}
	}
	if removed == 0 {
		return raw, 0, nil
	}
	if kept == nil {
		kept = []json.RawMessage{}
	}
	out, err := marshal(kept)
	return out, removed, err
}

// group is the matcher group of e for event ev, in the agent's format.
func (in installer) group(ev installEvent, e Entry) (json.RawMessage, error) {
	handler := object{}
	if in.name != "" {
		name, _ := marshal(in.name)
		handler.set("name", name)
	}
	handler.set("type", json.RawMessage(`"command"`))
	cmd, err := marshal(e.Command)
	if err != nil {
		return nil, err
	}
	handler.set("command", cmd)
	timeout, _ := marshal(int64(math.Ceil(float64(e.Timeout) / float64(in.unit))))
	handler.set("timeout", timeout)
	group := object{}
	if ev.matcher != "" {
		m, _ := marshal(ev.matcher)
		group.set("matcher", m)
	}
	hs, err := marshal([]object{handler})
	if err != nil {
		return nil, err
	}
	group.set("hooks", hs)
	return marshal(group)
}

// IsEntry reports whether command runs agentsh hook agent: a command
// (read as bashcmd.Parse reads commands, also behind env, sh -c and the
// like) named agentsh or agentsh-something, whose next two words are hook
// and agent. These are the entries Install replaces and Uninstall
// removes; what a person wrote by hand counts too.
func IsEntry(command, agent string) bool {
	for _, c := range bashcmd.Parse(command).Commands {
		if len(c.Args) >= 3 && strings.HasPrefix(c.Name, "agentsh") &&
			c.Args[1].Static && c.Args[1].Text == "hook" && c.Args[2].Static && c.Args[2].Text == agent {
			return true
		}
	}
	return false
}

// Command is the command of agentsh's hook entries: exe hook agent args,
// each word quoted for a POSIX shell, made to fail closed. The agents
// treat exit 2 as "block"; but a binary that is missing (exit 127), a
// process that is killed (128+N) or any other exit status is, to Claude
// Code and Codex, a failed hook whose call goes ahead. So any status
// other than 0 and 2 becomes exit 2, with a reason on stderr (Codex
// ignores an exit 2 that gives none).
func Command(exe, agent string, args []string) string {
	words := []string{ShellQuote(exe), "hook", agent}
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	run := strings.Join(words, " ")
	why := ShellQuote("agentsh: "+exe+" hook "+agent+" ended with exit status ") + `"$s"` +
		ShellQuote(", so the call is blocked; check that "+exe+" runs (go install ./cmd/agentsh), then run agentsh hook install "+agent+" again")
	return run + ` || { s=$?; [ "$s" -eq 2 ] || printf '%s\n' ` + why + ` >&2; exit 2; }`
}

// writeAtomic replaces path by rename with b, in mode: a temp file in the
// same directory, synced before the rename.
func writeAtomic(path string, b []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
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
	if err := tmp.Sync(); err != nil {
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

// Elsewhere lists the other files the agent reads hooks from — the
// other scope's settings, Claude Code's .claude/settings.local.json,
// Codex's config.toml next to its hooks.json — that also run agentsh hook
// agent: then the agent asks agentsh twice for every event (and a budget
// counts twice). dir is the project directory; path, the file Install
// changed, is left out. A file that cannot be read is left out too.
func Elsewhere(agent, dir, path string) []string {
	var candidates []string
	for _, scope := range []Scope{ScopeProject, ScopeUser} {
		if p, err := SettingsPath(agent, scope, dir); err == nil {
			candidates = append(candidates, p)
			switch agent {
			case "claude-code":
				if scope == ScopeProject {
					candidates = append(candidates, filepath.Join(filepath.Dir(p), "settings.local.json"))
				}
			case "codex":
				candidates = append(candidates, filepath.Join(filepath.Dir(p), "config.toml"))
			}
		}
	}
	var found []string
	for _, c := range candidates {
		if sameFile(c, path) {
			continue
		}
		b, _, err := readSettings(c)
		if err != nil || b == nil {
			continue
		}
		if filepath.Ext(c) == ".toml" {
			// Codex's [hooks] tables: a command string that runs agentsh.
			for _, line := range strings.Split(string(b), "\n") {
				if _, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(strings.TrimSpace(line), "command") {
					var cmd string
					if json.Unmarshal([]byte(strings.TrimSpace(v)), &cmd) == nil && IsEntry(cmd, agent) {
						found = append(found, c)
						break
					}
				}
			}
			continue
		}
		settings, err := parseObject(b)
		if err != nil {
			continue
		}
		hooks, _ := settings.get("hooks")
		h, err := parseObject(hooks)
		if err != nil {
			continue
		}
		for _, m := range h {
			if _, n, _ := removeEntries(m.value, agent); n > 0 {
				found = append(found, c)
				break
			}
		}
	}
	return found
}

// sameFile reports whether a and b name one file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
