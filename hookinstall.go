package agentsh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// HookAgents are the agents Hook and InstallHook speak for.
func HookAgents() []string { return hookadapter.Agents() }

// HookExitBlock is the exit code with which an agent's hook blocks the
// call.
const HookExitBlock = hookadapter.ExitBlock

// HookInstall says where InstallHook and UninstallHook write and what the
// entries run.
type HookInstall struct {
	// Agent is "claude-code", "gemini" or "codex".
	Agent string
	// User writes the user's settings instead of the project's in
	// WorkDir ("" is the current directory).
	User    bool
	WorkDir string
	// Exe is the agentsh the entries run; "" is this program. It must be
	// a regular, executable file, and, unless AllowTempExe, not one in
	// the Go build cache or a temp directory, which go clean or a reboot
	// removes.
	Exe          string
	AllowTempExe bool
	// Scripts are the policies the entries load, made absolute.
	Scripts []string
	// Permissions, MaxSteps, Deadline, EventsFile and AuditFile are the
	// entries' --permissions, --max-steps, --timeout, --events and
	// --audit (the files made absolute); zero values leave them out.
	//
	// InstallHook loads the policies, and when none has an after hook
	// (and there is no EventsFile or AuditFile, which log each call's
	// result) the entries leave out the event after a tool call, so the
	// agent starts agentsh once per call, not twice.
	Permissions string
	MaxSteps    uint64
	Deadline    time.Duration
	EventsFile  string
	AuditFile   string
	// Timeout is how long the agent lets an entry run.
	Timeout time.Duration
}

// HookChange is what InstallHook or UninstallHook did.
type HookChange struct {
	hookadapter.Change
	// Events are the agent's events the entries answer.
	Events []string
	// Command is what each entry runs.
	Command string
	// Elsewhere are the other settings files the agent reads that run
	// agentsh's hooks too: every event would be decided twice.
	// OtherScope reports that one is the other scope's file (project or
	// user), which UninstallHook can clean.
	Elsewhere  []string
	OtherScope string
	// Notes say when the agent will not run the entries at all, and the
	// calls go ahead unchecked.
	Notes []string
	// NoAfter reports that the policies have no after hook, so the
	// entries leave out the event after a tool call.
	NoAfter bool
}

// noAfterHooks loads the policies as agentsh hook will and reports
// whether none has an after hook. Policies that fail to load have the
// error, and the entries keep every event: what the policies will hold
// once fixed cannot be known.
func noAfterHooks(o HookInstall) (bool, error) {
	sh, err := New(WithWorkDir(o.WorkDir), WithOutput(io.Discard), WithValidateArguments(false),
		func(c *Config) { c.Warn = func(string, string) {} })
	if err != nil {
		return false, err
	}
	defer sh.Close()
	for _, f := range o.Scripts {
		if err := sh.Load(context.Background(), f); err != nil {
			return false, err
		}
	}
	return !sh.exec.HasAfterHooks(), nil
}

// hookSettings is the agent's settings file of o's scope.
func (o HookInstall) hookSettings() (string, error) {
	scope := hookadapter.ScopeProject
	if o.User {
		scope = hookadapter.ScopeUser
	}
	dir, err := filepath.Abs(cmpOr(o.WorkDir, "."))
	if err != nil {
		return "", err
	}
	return hookadapter.SettingsPath(o.Agent, scope, dir)
}

// InstallHook writes agentsh's hook entries into the agent's settings,
// replacing any it had there.
func InstallHook(o HookInstall) (HookChange, error) {
	path, err := o.hookSettings()
	if err != nil {
		return HookChange{}, &OptionError{Option: "HookInstall.Agent", Err: err}
	}
	exe, err := hookExe(o)
	if err != nil {
		return HookChange{}, err
	}
	var args []string
	for _, f := range o.Scripts {
		abs, err := regularFile(f)
		if err != nil {
			return HookChange{}, &OptionError{Option: "HookInstall.Scripts", Value: f, Err: err}
		}
		args = append(args, "--load", abs)
	}
	entry := hookadapter.Entry{Timeout: o.Timeout}
	var loadErr error
	if o.EventsFile == "" && o.AuditFile == "" {
		entry.NoAfter, loadErr = noAfterHooks(o)
	}
	if o.Permissions != "" {
		args = append(args, "--permissions", o.Permissions)
	}
	if o.MaxSteps > 0 {
		args = append(args, "--max-steps", strconv.FormatUint(o.MaxSteps, 10))
	}
	if o.Deadline > 0 {
		args = append(args, "--timeout", o.Deadline.String())
	}
	for _, f := range []struct{ flag, path string }{{"--events", o.EventsFile}, {"--audit", o.AuditFile}} {
		if f.path == "" {
			continue
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return HookChange{}, err
		}
		args = append(args, f.flag, abs)
	}
	if entry.NoAfter {
		args = append(args, "--no-after-hooks")
	}
	entry.Command = hookadapter.Command(exe, o.Agent, args)
	c, err := hookadapter.Install(o.Agent, path, entry)
	if err != nil {
		return HookChange{}, err
	}
	hc := HookChange{Change: c, Events: entry.Events(o.Agent), Command: entry.Command, NoAfter: entry.NoAfter,
		Notes: trustNotes(o.Agent, !o.User, c.Wrote)}
	if loadErr != nil {
		hc.Notes = append(hc.Notes, fmt.Sprintf("the policies fail to load, so the entries block every call until they do: %v", loadErr))
	}
	dir, _ := filepath.Abs(cmpOr(o.WorkDir, "."))
	other := o
	other.User = !o.User
	otherPath, _ := other.hookSettings()
	for _, p := range hookadapter.Elsewhere(o.Agent, dir, c.Path) {
		hc.Elsewhere = append(hc.Elsewhere, p)
		if p == otherPath {
			hc.OtherScope = p
		}
	}
	return hc, nil
}

// UninstallHook takes agentsh's hook entries out of the agent's settings.
func UninstallHook(o HookInstall) (HookChange, error) {
	path, err := o.hookSettings()
	if err != nil {
		return HookChange{}, &OptionError{Option: "HookInstall.Agent", Err: err}
	}
	c, err := hookadapter.Uninstall(o.Agent, path)
	return HookChange{Change: c}, err
}

// trustNotes say when the agent will not run the entries at all, and the
// calls go ahead unchecked.
func trustNotes(agent string, project, wrote bool) []string {
	var notes []string
	switch {
	case agent == "gemini" && project:
		notes = append(notes, "Gemini CLI runs a project's hooks only in a trusted folder: trust this one when Gemini CLI asks "+
			"(headless: GEMINI_CLI_TRUST_WORKSPACE=true); with --skip-trust it runs without them")
	case agent == "codex" && project:
		notes = append(notes, "Codex reads a project's .codex only in a trusted project: trust it when Codex asks, or run codex exec --trust once")
	}
	if agent == "codex" && wrote {
		notes = append(notes, "Codex runs a new or changed hook only once you trust it: start codex and trust these entries at \"Hooks need review\"; "+
			"until then codex exec skips them without a word and every call goes ahead unchecked")
	}
	return notes
}

// hookExe is the agentsh that installed entries run. A bad Exe is an
// *OptionError.
func hookExe(o HookInstall) (string, error) {
	exe := o.Exe
	fail := func(err error) error { return &OptionError{Option: "HookInstall.Exe", Value: exe, Err: err} }
	if exe == "" {
		e, err := os.Executable()
		if err != nil {
			return "", optionErrorf("HookInstall.Exe", "cannot find the agentsh executable (%v); name it", err)
		}
		exe = e
		fail = func(err error) error { return fmt.Errorf("the agentsh executable %s: %w", e, err) }
	}
	abs, err := regularFile(exe)
	if err != nil {
		return "", fail(err)
	}
	if st, _ := os.Stat(abs); st.Mode().Perm()&0o111 == 0 {
		return "", fail(errors.New("it is not executable; name agentsh's binary"))
	}
	if !o.AllowTempExe {
		if err := hookadapter.CheckExecutable(abs); err != nil {
			return "", err
		}
	}
	return abs, nil
}

// regularFile is path made absolute, when it names a regular file.
func regularFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", err
	case !st.Mode().IsRegular():
		return "", errors.New("it is not a regular file")
	}
	return abs, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
