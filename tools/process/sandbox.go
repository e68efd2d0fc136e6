package process

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/workpath"
)

// Profile is how much of the machine a sandboxed command may touch.
type Profile string

// The profiles, narrowest first.
const (
	// ProfileReadOnly: the command reads the working directory and the
	// system but writes only its private /tmp; home, secret files and the
	// network are out of reach.
	ProfileReadOnly Profile = "read-only"
	// ProfileWorkspace: as ProfileReadOnly, and the working directory is
	// writable except its .git entries and the agents' own configuration
	// folders (Protected).
	ProfileWorkspace Profile = "workspace"
	// ProfileOff: no sandbox; the command runs with agentsh's own rights.
	ProfileOff Profile = "off"
)

// Profiles lists the profile names, narrowest first.
var Profiles = []Profile{ProfileReadOnly, ProfileWorkspace, ProfileOff}

// ParseProfile returns the profile named s.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown sandbox profile %q: want read-only, workspace or off", s)
}

// Backends lists the names NewSandbox accepts for SandboxConfig.Backend.
var Backends = []string{"auto", "bwrap", "landlock"}

// DefaultSecrets are the files a sandboxed command cannot read when
// SandboxConfig.Secrets is nil: the usual homes of keys, tokens and
// passwords, in workpath.MatchList's syntax (a name matches anywhere in
// the working directory; a trailing / hides a whole directory; ! takes a
// name back out).
var DefaultSecrets = []string{
	".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials",
	".aws/", ".ssh/", ".gnupg/", ".kube/", ".docker/", ".azure/", ".config/gcloud/",
}

// DefaultProtected are the names kept read-only wherever they appear in
// the working directory when SandboxConfig.Protected is nil: git's
// metadata (a .git directory, or a worktree's .git file), whose hooks and
// configuration run programs at the person's next git command, and the
// agents' own configuration, which says what they may do.
var DefaultProtected = []string{".git", ".agentsh", ".claude", ".codex", ".gemini"}

// SandboxConfig configures a Sandbox. The zero value is usable.
type SandboxConfig struct {
	// Backend is "auto" (or ""), "bwrap" or "landlock". Auto prefers
	// Bubblewrap and falls back to Landlock; a named backend that cannot
	// confine here makes NewSandbox fail.
	Backend string
	// Secrets are the patterns of files under the working directory that
	// a sandboxed command cannot read (workpath.MatchList); nil means
	// DefaultSecrets.
	Secrets []string
	// Protected are the names (not patterns) kept read-only wherever
	// they appear under the working directory; nil means
	// DefaultProtected.
	Protected []string
	// AllowHosts are the host names a sandboxed command may reach, through
	// agentsh's loopback proxy (HTTPS_PROXY); empty means no network.
	AllowHosts []string
	// Grace, MaxOutput and BaseEnv are as for LocalExec.
	Grace     time.Duration
	MaxOutput int
	BaseEnv   []string
}

// Sandbox runs commands for one working directory under a profile: off
// on this machine (LocalExec), read-only and workspace confined by a
// backend, Bubblewrap or Landlock with seccomp, with one behaviour (see
// docs/safety.md). It is safe for concurrent use.
//
// Every confined run starts from a fresh look at the working directory:
// the .git entries, agent folders and secret files found there are what
// the run may not write or read. A protected name that appears during a
// run (a .git made by `git init` inside, or made in the place of one
// whose directory was moved aside) is renamed afterwards to
// NAME.sandboxed-N, so that it cannot run programs at the person's next
// git command; the run's output says so.
type Sandbox struct {
	root  string
	local *LocalExec

	probe   sync.Once // finds the backend on first need
	backend confiner  // nil when none can confine here
	why     error     // why backend is nil

	mu    sync.RWMutex
	cfg   SandboxConfig
	proxy *Proxy // started on the first run that needs it

	proxyOpts proxyOptions // tests: a resolver, loopback allowed
}

// confiner is a backend: it runs one request under a plan.
type confiner interface {
	name() string
	run(ctx context.Context, pl *plan, req ExecRequest, cfg runConfig) (ExecResult, error)
}

// ErrNoSandbox is wrapped by the error of a confined run when no backend
// can confine here.
var ErrNoSandbox = errors.New("no sandbox can confine commands here")

// ErrInsideSandbox is the error of a confined command that agentsh cannot
// start because agentsh itself runs inside another sandbox, one whose
// seccomp filter kills a new process group.
var ErrInsideSandbox = errors.New("runs inside another sandbox")

// NewSandbox returns a Sandbox for directories below root. It fails
// only for a malformed configuration or root; which backend confines is
// found on first need (Backend, Unavailable, Exec), since finding out
// starts a process.
func NewSandbox(root string, cfg SandboxConfig) (*Sandbox, error) {
	if err := checkSandboxConfig(cfg); err != nil {
		return nil, err
	}
	if _, _, err := resolveDir(root, "."); err != nil {
		return nil, err
	}
	return &Sandbox{root: root, cfg: cfg, local: &LocalExec{root: root, Grace: cfg.Grace, MaxOutput: cfg.MaxOutput, BaseEnv: cfg.BaseEnv}}, nil
}

// findBackend sets backend, or why when none can confine here: the one
// SandboxConfig.Backend names, or for auto Bubblewrap, then Landlock.
func (s *Sandbox) findBackend() {
	realRoot, _, err := resolveDir(s.root, ".")
	if err == nil && realRoot == "/" {
		err = errors.New("the working directory is /, which a sandbox would leave writable as a whole")
	}
	if err != nil {
		s.why = fmt.Errorf("%w: %v", ErrNoSandbox, err)
		return
	}
	tries := map[string]func() (confiner, error){
		"bwrap":    func() (confiner, error) { return newBwrapConfiner(realRoot) },
		"landlock": newLandlockConfiner,
	}
	names := []string{"bwrap", "landlock"}
	if b := s.cfg.Backend; b != "" && b != "auto" {
		names = []string{b}
	}
	var errs []string
	for _, n := range names {
		c, err := tries[n]()
		if err == nil {
			s.backend = c
			return
		}
		errs = append(errs, fmt.Sprintf("%s: %v", n, strings.TrimPrefix(err.Error(), "process: ")))
	}
	s.why = fmt.Errorf("%w: %s", ErrNoSandbox, strings.Join(errs, "; "))
}

func checkSandboxConfig(cfg SandboxConfig) error {
	switch cfg.Backend {
	case "", "auto", "bwrap", "landlock":
	default:
		return fmt.Errorf("process: unknown sandbox backend %q: want auto, bwrap or landlock", cfg.Backend)
	}
	if err := workpath.CheckPatterns(cfg.Secrets); err != nil {
		return fmt.Errorf("process: secret files: %w", err)
	}
	for _, n := range cfg.Protected {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			return fmt.Errorf("process: protected name %q is not a file name", n)
		}
	}
	for _, h := range cfg.AllowHosts {
		if err := checkHostPattern(h); err != nil {
			return err
		}
	}
	return nil
}

// CheckHost reports whether h can be an entry of the allow list
// (SandboxConfig.AllowHosts): a host name, host:port or *.domain.
func CheckHost(h string) error { return checkHostPattern(h) }

// Backend names the backend that confines runs ("bwrap" or "landlock"),
// or "" when none can.
func (s *Sandbox) Backend() string {
	s.probe.Do(s.findBackend)
	if s.backend == nil {
		return ""
	}
	return s.backend.name()
}

// Unavailable says why no backend can confine here; nil when one can.
func (s *Sandbox) Unavailable() error {
	s.probe.Do(s.findBackend)
	if s.backend != nil {
		return nil
	}
	return s.why
}

// Config returns the configuration in use.
func (s *Sandbox) Config() SandboxConfig {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg
}

// SetSecrets replaces the secret patterns for runs that start from now
// on; nil means DefaultSecrets. A malformed pattern changes nothing.
func (s *Sandbox) SetSecrets(patterns []string) error {
	if err := workpath.CheckPatterns(patterns); err != nil {
		return fmt.Errorf("process: secret files: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Secrets = append([]string(nil), patterns...)
	if patterns == nil {
		s.cfg.Secrets = nil
	}
	return nil
}

// SetAllowHosts replaces the hosts sandboxed runs may reach, for runs
// that start from now on. A malformed host changes nothing.
func (s *Sandbox) SetAllowHosts(hosts []string) error {
	for _, h := range hosts {
		if err := checkHostPattern(h); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.AllowHosts = append([]string(nil), hosts...)
	if s.proxy != nil {
		s.proxy.SetAllowed(s.cfg.AllowHosts)
	}
	return nil
}

// Close stops the network proxy, if one was started.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proxy == nil {
		return nil
	}
	err := s.proxy.Close()
	s.proxy = nil
	return err
}

// Exec runs req under profile p: ProfileOff on this machine, the others
// confined by the backend. A confined run when no backend can confine is
// an error wrapping ErrNoSandbox; it never runs unconfined.
func (s *Sandbox) Exec(ctx context.Context, p Profile, req ExecRequest) (ExecResult, error) {
	switch p {
	case ProfileOff:
		return s.local.Exec(ctx, req)
	case ProfileReadOnly, ProfileWorkspace:
	default:
		return ExecResult{ExitCode: -1}, fmt.Errorf("process: unknown sandbox profile %q: want read-only, workspace or off", p)
	}
	if err := s.Unavailable(); err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	cfg := s.Config()
	pl, err := newPlan(s.root, p, cfg, req)
	if err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	if len(cfg.AllowHosts) > 0 {
		if pl.proxy, err = s.startProxy(); err != nil {
			return ExecResult{ExitCode: -1}, err
		}
	}
	res, err := s.backend.run(ctx, pl, req, runConfig{grace: cfg.Grace, maxOutput: cfg.MaxOutput})
	if note := pl.quarantine(); note != "" {
		res.Output = append(res.Output, note...)
	}
	return res, err
}

// Ops returns s as an ExecOps that runs every request under profile p.
func (s *Sandbox) Ops(p Profile) ExecOps { return profileOps{s, p} }

type profileOps struct {
	s *Sandbox
	p Profile
}

func (o profileOps) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	return o.s.Exec(ctx, o.p, req)
}

// startProxy returns the running proxy, starting it on first use.
func (s *Sandbox) startProxy() (*Proxy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proxy != nil {
		return s.proxy, nil
	}
	p, err := newProxy(s.cfg.AllowHosts, s.proxyOpts)
	if err != nil {
		return nil, err
	}
	s.proxy = p
	return p, nil
}
