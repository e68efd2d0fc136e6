package process

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"golang.org/x/sys/unix"
)

// The escape suite: every attempt in escapeAttempts runs from inside the
// sandbox, on each backend (TestSandboxEscapes/bwrap/NAME,
// …/landlock/NAME), and must leave no mark: no file changed outside the
// working directory, no .git or agent configuration planted, no secret in
// its output or copied into the working directory, no setuid file or
// device node, no process left behind, and whatever the attempt itself
// watches (a listener, a victim process, a terminal). A sample of the
// attempts also runs unconfined (…/off/NAME), where each must leave its
// mark: that shows the attempt is a real one and that the marks are seen.
//
// Set AGENTSH_ESCAPE_TABLE to a file name to get the results as a
// markdown table.

// escapeConcurrency bounds the attempts in flight across all backends.
const escapeConcurrency = 3

// escapeMemSecret holds the suite's secret in the test process's own
// memory, for the attempt that reads another process's memory.
var escapeMemSecret [64]byte

type escapeSuite struct {
	hostRoot string // holds each attempt's directory; below /var/tmp when it can, which no private /tmp hides
	tmpRoot  string // below os.TempDir(), for targets in the host's /tmp
	home     string // HOME while the suite runs, which the sandbox must hide
	helper   string // a copy of this test binary, the helper program
	secret   string // in every secret file and nowhere else
	hostIP   string // a non-loopback IPv4 address of this machine, or ""
	ipv6     bool   // ::1 can be listened on
	sem      chan struct{}

	mu      sync.Mutex
	probed  map[string]*Sandbox          // backend → a Sandbox NewSandbox made
	results map[string]map[string]string // backend → attempt → result
	skipped map[string]string            // backend → why it did not run
}

func TestSandboxEscapes(t *testing.T) {
	// Not parallel: HOME is the process's, and the sandbox hides the
	// home directory it finds there.
	s := newEscapeSuite(t)
	t.Cleanup(func() { s.report(t) })
	for _, b := range []string{"bwrap", "landlock", "off"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			cfg := SandboxConfig{Backend: b}
			if b == "off" {
				cfg.Backend = "" // unconfined runs need no backend
			}
			sb, err := newEscapeSandbox(t, cfg)
			s.mu.Lock()
			s.probed[b] = sb
			if err != nil {
				s.skipped[b] = err.Error()
			}
			s.mu.Unlock()
			if err != nil {
				t.Skip(err)
			}
			var wg sync.WaitGroup
			for _, a := range escapeAttempts {
				if b == "off" && !a.control {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.sem <- struct{}{}
					defer func() { <-s.sem }()
					t.Run(a.name, func(t *testing.T) { s.run(t, b, a) })
				}()
			}
			wg.Wait()
		})
	}
}

// newEscapeSandbox returns a Sandbox made by NewSandbox for cfg, or says
// why the backend cannot confine here.
func newEscapeSandbox(t *testing.T, cfg SandboxConfig) (*Sandbox, error) {
	sb, err := NewSandbox(t.TempDir(), cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { sb.Close() })
	if cfg.Backend == "" {
		return sb, nil // unconfined runs need no backend
	}
	if err := sb.Unavailable(); err != nil {
		if strings.Contains(err.Error(), "not built yet") {
			return nil, fmt.Errorf("the %s backend is not built yet, so its column cannot run: %v", cfg.Backend, err)
		}
		return nil, fmt.Errorf("the %s backend cannot confine on this machine: %v", cfg.Backend, err)
	}
	return sb, nil
}

// sandboxAt returns a Sandbox like sb for another working directory,
// sharing the backend sb found: finding one (Bubblewrap runs a probe)
// happens once per backend, not once per attempt. Every run starts from
// a plan of its own working directory.
func sandboxAt(sb *Sandbox, root string) *Sandbox {
	sb.probe.Do(sb.findBackend)
	cfg := sb.Config()
	at := &Sandbox{
		root: root, cfg: cfg, backend: sb.backend, why: sb.why,
		local: &LocalExec{root: root, Grace: cfg.Grace, MaxOutput: cfg.MaxOutput, BaseEnv: cfg.BaseEnv},
	}
	at.probe.Do(func() {}) // found already
	return at
}

func newEscapeSuite(t *testing.T) *escapeSuite {
	s := &escapeSuite{
		tmpRoot: realTempDir(t),
		sem:     make(chan struct{}, escapeConcurrency),
		results: map[string]map[string]string{},
		skipped: map[string]string{},
		probed:  map[string]*Sandbox{},
	}
	// A directory outside /tmp, so that a write that gets past the
	// sandbox is not caught by its private /tmp instead.
	if d, err := os.MkdirTemp("/var/tmp", "agentsh-escape-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(d) })
		s.hostRoot, _ = filepath.EvalSymlinks(d)
	} else {
		t.Logf("no directory outside /tmp (%v): host targets are below %s, which the private /tmp also hides", err, s.tmpRoot)
		s.hostRoot = realTempDir(t)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	s.secret = "sEcReT-" + hex.EncodeToString(rnd[:])
	copy(escapeMemSecret[:], s.secret)

	s.home = filepath.Join(s.hostRoot, "home")
	writeHome(t, s.home, s.secret)
	must(t, os.Mkdir(filepath.Join(s.home, "w"), 0o755))
	t.Setenv("HOME", s.home)

	exe, err := os.Executable()
	must(t, err)
	s.helper = filepath.Join(s.hostRoot, escapeHelperName)
	must(t, copyFile(exe, s.helper, 0o755))

	s.hostIP = hostIPv4()
	if ln, err := netListen("tcp6", "[::1]:0"); err == nil {
		ln.Close()
		s.ipv6 = true
	}
	return s
}

// writeHome fills a home directory with what the sandbox must hide.
func writeHome(t *testing.T, home, secret string) {
	for rel, content := range map[string]string{
		".ssh/id_ed25519":        secret + " home ssh key\n",
		".aws/credentials":       "[default]\naws_secret_access_key = " + secret + "\n",
		".netrc":                 "machine example.com password " + secret + "\n",
		".config/gh/hosts.yml":   "oauth_token: " + secret + "\n",
		".bashrc":                "# the person's shell start-up file\n",
		".gitconfig":             "[user]\n\tname = person\n",
		".ssh/authorized_keys":   "ssh-ed25519 AAAA person\n",
		".local/share/keep.json": "{}\n",
	} {
		p := filepath.Join(home, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o600))
	}
}

// escapeEnv is one attempt on one backend: its directories, its sandbox,
// and what the checks compare against.
type escapeEnv struct {
	t       *testing.T
	s       *escapeSuite
	a       *escapeAttempt
	backend string // bwrap, landlock or off
	profile Profile
	sb      *Sandbox

	base   string // the attempt's own directory: the host files, and work
	work   string // the working directory
	tmpOut string // a directory of the host's /tmp
	mark   string // base/mark.sh, a program that writes base/plant-ran
	token  string
	env    []string

	outputs         []string
	outside         []snapRoot
	protectedBefore []protectedEntry
	workBefore      map[string]fileState
	secretInodes    map[uint64]bool
}

// snapRoot is a directory the attempt must not change, and its state.
type snapRoot struct {
	dir    string
	skip   string // a directory below dir left out ("" for none)
	before map[string]fileState
}

func (s *escapeSuite) run(t *testing.T, backend string, a *escapeAttempt) {
	for _, p := range a.needs {
		if _, err := exec.LookPath(p); err != nil {
			s.skip(t, backend, a, p+" is not installed")
		}
	}
	if a.repo != "" {
		if _, err := exec.LookPath("git"); err != nil {
			s.skip(t, backend, a, "git is not installed")
		}
	}
	if a.userns {
		if b, _ := os.ReadFile("/proc/sys/user/max_user_namespaces"); strings.TrimSpace(string(b)) == "0" || len(b) == 0 {
			s.skip(t, backend, a, "this kernel allows no user namespaces")
		}
	}
	if backend == "off" && a.controlRoot && os.Geteuid() != 0 {
		s.skip(t, backend, a, "the control needs root")
	}
	defer func() {
		// A failure that ended the attempt early (t.Fatal) still
		// shows in the table.
		s.mu.Lock()
		_, ok := s.results[backend][a.name]
		s.mu.Unlock()
		if !ok && t.Failed() {
			s.record(backend, a, "FAILED: see the test's log")
		}
	}()
	e := s.newEnv(t, backend, a)
	ev := a.run(e)
	ev = append(ev, e.commonEvidence()...)
	if a.repo != "" {
		ev = append(ev, e.gitPlants()...)
	}
	switch {
	case a.positive:
		if len(ev) > 0 {
			t.Errorf("ordinary work is refused or leaves a mark: %s\noutput:\n%s", strings.Join(ev, "; "), e.output())
			s.record(backend, a, "REFUSED: "+strings.Join(ev, "; "))
		} else {
			s.record(backend, a, "allowed")
		}
	case backend == "off":
		if len(ev) == 0 {
			t.Errorf("unconfined the attempt leaves no mark either, so it proves nothing\noutput:\n%s", e.output())
			s.record(backend, a, "NO MARK (a broken control)")
		} else {
			t.Logf("unconfined: %s", strings.Join(ev, "; "))
			s.record(backend, a, "gets through")
		}
	case a.known[backend] != "":
		if len(ev) == 0 {
			t.Errorf("docs/safety.md says this gets through on %s (%s), but it is blocked: update the docs and the suite\noutput:\n%s", backend, a.known[backend], e.output())
			s.record(backend, a, "blocked, though documented as getting through")
		} else {
			t.Logf("gets through, as docs/safety.md says (%s): %s", a.known[backend], strings.Join(ev, "; "))
			s.record(backend, a, "gets through, a documented limitation: "+a.known[backend])
		}
	default:
		if len(ev) > 0 {
			t.Errorf("ESCAPED: %s\noutput:\n%s", strings.Join(ev, "; "), e.output())
			s.record(backend, a, "**ESCAPED**: "+strings.Join(ev, "; "))
		} else {
			t.Logf("blocked\n%s", e.output())
			s.record(backend, a, "blocked")
		}
	}
}

func (s *escapeSuite) skip(t *testing.T, backend string, a *escapeAttempt, why string) {
	t.Helper()
	s.record(backend, a, "skipped: "+why)
	t.Skip(why)
}

func (s *escapeSuite) record(backend string, a *escapeAttempt, result string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.results[backend] == nil {
		s.results[backend] = map[string]string{}
	}
	s.results[backend][a.name] = result
}

// newEnv makes the attempt's directories and sandbox.
func (s *escapeSuite) newEnv(t *testing.T, backend string, a *escapeAttempt) *escapeEnv {
	e := &escapeEnv{t: t, s: s, a: a, backend: backend, profile: a.profile}
	if e.profile == "" {
		e.profile = ProfileWorkspace
	}
	if backend == "off" {
		e.profile = ProfileOff
	}
	var err error
	e.base, err = os.MkdirTemp(s.hostRoot, "a-")
	must(t, err)
	e.tmpOut, err = os.MkdirTemp(s.tmpRoot, "t-")
	must(t, err)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	e.token = hex.EncodeToString(rnd[:])

	writeFiles(t, e.base, map[string]string{
		"host.txt":         "a host file the sandbox must not change\n",
		"hostdir/keep.txt": "a host directory's file\n",
	})
	writeFiles(t, e.tmpOut, map[string]string{"host.txt": "a file in the host's /tmp\n"})
	e.mark = filepath.Join(e.base, "mark.sh")
	must(t, os.WriteFile(e.mark, []byte("#!/bin/sh\necho \"planted program ran: $0 $*\" >> '"+filepath.Join(e.base, "plant-ran")+"'\ncat >/dev/null 2>&1 || true\n"), 0o755))

	switch {
	case a.inHome:
		e.work, err = os.MkdirTemp(filepath.Join(s.home, "w"), "p-")
		must(t, err)
	case a.repo == "worktree":
		e.work = filepath.Join(e.base, "work")
		main := filepath.Join(e.base, "main")
		must(t, os.Mkdir(main, 0o755))
		writeFiles(t, main, map[string]string{"README.txt": "main checkout\n"})
		e.gitInit(main)
		e.hostGit(main, "worktree", "add", "-q", e.work)
	default:
		e.work = filepath.Join(e.base, "work")
		must(t, os.Mkdir(e.work, 0o755))
	}
	// src/ holds no protected entry and no secret: under Landlock,
	// entries can be made only in such directories (docs/safety.md), so
	// the attempts make theirs there.
	writeFiles(t, e.work, map[string]string{
		"src/main.txt": "the source\n",
		"README.txt":   "the project\n",
	})
	// The agents' folders and the secret files only where the attempt
	// is about them: every file made costs time on a busy file system.
	if a.category == catAgent || a.category == catGit || a.category == catMount || a.positive {
		writeFiles(t, e.work, map[string]string{
			".claude/settings.json": `{"permissions": {"deny": ["Bash"]}}` + "\n",
			".agentsh/policy.star":  "# the person's policy\n",
			".codex/config.toml":    "sandbox_mode = \"workspace-write\"\n",
			".gemini/settings.json": "{}\n",
		})
	}
	if a.repo == "repo" || a.repo == "nested" {
		e.gitInit(e.work)
	}
	if a.repo == "nested" {
		nested := filepath.Join(e.work, "nested")
		writeFiles(t, nested, map[string]string{
			"README.txt":            "a nested project\n",
			".claude/settings.json": "{}\n",
		})
		e.gitInit(nested)
	}
	secrets := map[string]string{}
	if a.category == catSecret || a.positive {
		for _, rel := range []string{".env", ".env.local", "key.pem", "id_ed25519", ".aws/credentials", ".ssh/id_rsa", "sub/.env"} {
			secrets[rel] = s.secret + " " + rel + "\n"
		}
		writeFiles(t, e.work, map[string]string{".env.example": "EXAMPLE_KEY=example-value-" + e.token + "\n"})
	}
	writeFiles(t, e.work, secrets)
	e.secretInodes = map[uint64]bool{}
	for rel := range secrets {
		if fi, err := os.Stat(filepath.Join(e.work, rel)); err == nil {
			e.secretInodes[fi.Sys().(*syscall.Stat_t).Ino] = true
		}
	}
	must(t, os.Symlink(filepath.Join(e.base, "hostdir"), filepath.Join(e.work, "pre-link")))
	helper := filepath.Join(e.work, escapeHelperName)
	if os.Link(s.helper, helper) != nil {
		must(t, copyFile(s.helper, helper, 0o755))
	}

	e.env = []string{
		"OUT=" + e.base,
		"HOSTFILE=" + filepath.Join(e.base, "host.txt"),
		"HOSTDIR=" + filepath.Join(e.base, "hostdir"),
		"TMPOUT=" + e.tmpOut,
		"H=" + helper,
		"MARK=" + e.mark,
		"TOKEN=" + e.token,
		"SURVIVOR=agentsh-survivor-" + e.token,
		"PHOME=" + s.home, // the person's home (HOME may be another inside)
		"TESTPID=" + strconv.Itoa(os.Getpid()),
		// Under the race detector the helper would wait a second as it
		// exits, for reports from other goroutines; it has none.
		"GORACE=atexit_sleep_ms=0",
	}
	if backend == "off" {
		// Unconfined, the home directory is the attempt's own copy, so
		// that a control that gets through changes nothing shared.
		ctl := filepath.Join(e.base, "ctlhome")
		if a.category == catHome {
			writeHome(t, ctl, s.secret)
		}
		e.env = append(e.env, "HOME="+ctl, "PHOME="+ctl)
	}

	s.mu.Lock()
	e.sb = sandboxAt(s.probed[backend], e.work)
	s.mu.Unlock()
	if a.allowHosts {
		e.sb.cfg.AllowHosts = []string{"example.com"}
		t.Cleanup(func() { e.sb.Close() })
	}

	return e
}

// takeSnapshots records what the checks compare against, once, just
// before the attempt's first command: after what the attempt set up
// (listeners, victims, archives), which is no mark.
func (e *escapeEnv) takeSnapshots() {
	if e.outside != nil {
		return
	}
	e.outside = []snapRoot{
		{dir: e.base, skip: e.work},
		{dir: e.tmpOut},
		{dir: e.s.home, skip: filepath.Join(e.s.home, "w")},
	}
	for i := range e.outside {
		e.outside[i].before = snapshot(e.outside[i].dir, e.outside[i].skip)
	}
	e.protectedBefore = protectedSnapshot(e.work)
	if e.a.profile == ProfileReadOnly {
		e.workBefore = snapshot(e.work, "")
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// setenv adds KEY=VALUE to the environment of the attempt's commands.
func (e *escapeEnv) setenv(key, value string) { e.env = append(e.env, key+"="+value) }

// sh runs script in bash inside the sandbox (unconfined for off).
func (e *escapeEnv) sh(script string) ExecResult {
	return e.shTimeout(script, testwait.Bound(20*time.Second))
}

func (e *escapeEnv) shTimeout(script string, timeout time.Duration) ExecResult {
	e.t.Helper()
	e.takeSnapshots()
	// The survivor's name in the script itself: a process forked from
	// it shows the name before it execs anything.
	shown := strings.TrimPrefix(script, awaitSurvivor)
	script = strings.ReplaceAll(script, "$SURVIVOR", "agentsh-survivor-"+e.token)
	res, err := e.sb.Exec(context.Background(), e.profile, ExecRequest{
		Args:    bash("echo escape-attempt-started; " + script),
		Env:     e.env,
		Timeout: timeout,
	})
	out := string(res.Output)
	e.outputs = append(e.outputs, fmt.Sprintf("$ %s\n%s[exit %d]", shown, out, res.ExitCode))
	if err != nil {
		e.t.Fatalf("Exec(%q): %v", script, err)
	}
	if !strings.Contains(out, "escape-attempt-started") {
		e.t.Fatalf("the attempt did not start, so it proves nothing: exit %d, output %q", res.ExitCode, out)
	}
	if strings.Contains(script, `"$H"`) && !strings.Contains(out, "escape-helper started") {
		e.t.Fatalf("the helper program did not run, so the attempt proves nothing: output %q", out)
	}
	return res
}

func (e *escapeEnv) output() string { return strings.Join(e.outputs, "\n") }

// skip skips the attempt on this backend, saying why.
func (e *escapeEnv) skip(why string) {
	e.t.Helper()
	e.s.skip(e.t, e.backend, e.a, why)
}

// commonEvidence are the marks every attempt is checked for.
func (e *escapeEnv) commonEvidence() []string {
	var ev []string
	for _, r := range e.outside {
		for _, d := range capLines(diffSnapshots(r.before, snapshot(r.dir, r.skip))) {
			ev = append(ev, "outside the working directory: "+d)
		}
	}
	ev = append(ev, diffProtected(e.protectedBefore, protectedSnapshot(e.work))...)
	if e.workBefore != nil {
		for _, d := range capLines(diffSnapshots(e.workBefore, snapshot(e.work, ""))) {
			ev = append(ev, "in the read-only working directory: "+d)
		}
	}
	if strings.Contains(e.output(), e.s.secret) {
		ev = append(ev, "a secret is in the output")
	}
	ev = append(ev, e.secretCopies()...)
	ev = append(ev, privilegedFiles(e.work)...)
	if e.a.category == catSurvive { // the only attempts that start $SURVIVOR
		ev = append(ev, killSurvivors("agentsh-survivor-"+e.token)...)
	}
	return ev
}

// secretCopies are the files in the working directory, other than the
// secret files themselves, that hold a secret.
func (e *escapeEnv) secretCopies() []string {
	var ev []string
	_ = filepath.WalkDir(e.work, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() > 1<<20 || e.secretInodes[fi.Sys().(*syscall.Stat_t).Ino] {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(e.s.secret)) {
			ev = append(ev, "a secret was copied to "+strings.TrimPrefix(p, e.work+"/"))
		}
		return nil
	})
	return ev
}

// privilegedFiles are the setuid or setgid files, device nodes and files
// with capabilities below dir.
func privilegedFiles(dir string) []string {
	var ev []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		switch m := fi.Mode(); {
		case m&(fs.ModeSetuid|fs.ModeSetgid) != 0:
			ev = append(ev, fmt.Sprintf("%s is %v", rel, m))
		case m&fs.ModeDevice != 0:
			ev = append(ev, fmt.Sprintf("%s is a device node (%v)", rel, m))
		}
		if m := fi.Mode(); m.IsRegular() {
			if n, err := unix.Lgetxattr(p, "security.capability", nil); err == nil && n > 0 {
				ev = append(ev, rel+" has file capabilities")
			}
		}
		return nil
	})
	return ev
}

// killSurvivors kills the processes whose command line holds token and
// says which there were.
func killSurvivors(token string) []string {
	var ev []string
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(token)) || !procAlive(pid) {
			continue
		}
		ev = append(ev, fmt.Sprintf("process %d (%s) outlived its call", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return ev
}

// procAlive reports whether pid exists and is neither dead nor dying
// (exiting, or with a SIGKILL pending: it runs no more of its own code).
func procAlive(pid int) bool {
	_, pending, ok := procSignalState(pid)
	return ok && pending&(1<<(uint(syscall.SIGKILL)-1)) == 0
}

// fileState is what a snapshot keeps of a file.
type fileState struct {
	mode     fs.FileMode
	uid, gid uint32
	size     int64
	mtime    int64
	data     string // a small regular file's contents, or a link's target
	xattrs   string
}

// snapshot records every entry below dir (dir itself as "."), except the
// directory skip and what is below it.
func snapshot(dir, skip string) map[string]fileState {
	m := map[string]fileState{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if skip != "" && p == skip {
			return fs.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		st := fi.Sys().(*syscall.Stat_t)
		s := fileState{mode: fi.Mode(), uid: st.Uid, gid: st.Gid}
		switch {
		case fi.Mode().IsRegular():
			s.size, s.mtime = fi.Size(), fi.ModTime().UnixNano()
			if fi.Size() <= 64<<10 {
				b, _ := os.ReadFile(p)
				s.data = string(b)
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			s.data, _ = os.Readlink(p)
		}
		buf := make([]byte, 4096)
		if n, err := unix.Llistxattr(p, buf); err == nil {
			s.xattrs = string(buf[:n])
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel] = s
		return nil
	})
	return m
}

// diffSnapshots says what changed between two snapshots.
func diffSnapshots(before, after map[string]fileState) []string {
	var out []string
	for _, p := range sortedKeys(before) {
		b := before[p]
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, p+" was removed")
		case a.mode != b.mode:
			out = append(out, fmt.Sprintf("%s changed mode from %v to %v", p, b.mode, a.mode))
		case a.uid != b.uid || a.gid != b.gid:
			out = append(out, fmt.Sprintf("%s changed owner from %d:%d to %d:%d", p, b.uid, b.gid, a.uid, a.gid))
		case a.data != b.data || a.size != b.size:
			was, is := excerpts(b.data, a.data)
			out = append(out, fmt.Sprintf("%s changed from %q to %q", p, was, is))
		case a.mtime != b.mtime:
			out = append(out, p+" changed its modification time")
		case a.xattrs != b.xattrs:
			out = append(out, fmt.Sprintf("%s changed extended attributes from %q to %q", p, b.xattrs, a.xattrs))
		}
	}
	for _, p := range sortedKeys(after) {
		if _, ok := before[p]; !ok {
			out = append(out, p+" was made")
		}
	}
	return out
}

// excerpts are a and b around where they first differ.
func excerpts(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-10, 0)
	cut := func(s string) string {
		s = s[min(from, len(s)):]
		if len(s) > 50 {
			s = s[:50] + "…"
		}
		return s
	}
	return cut(a), cut(b)
}

func sortedKeys(m map[string]fileState) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// protectedEntry is a protected entry (.git, an agent's folder) of the
// working directory and everything in it.
type protectedEntry struct {
	rel      string
	fi       fs.FileInfo
	contents map[string]fileState
}

// protectedSnapshot records the protected entries below work.
func protectedSnapshot(work string) []protectedEntry {
	var out []protectedEntry
	_ = filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == work || !slices.Contains(DefaultProtected, d.Name()) {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(work, p)
		out = append(out, protectedEntry{rel: rel, fi: fi, contents: snapshot(p, "")})
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// diffProtected says how the protected entries changed, each followed by
// its identity wherever it now is (moving the directory that holds one
// changes no protected entry): one removed or changed, and any new one
// left behind (a new one is set aside after a workspace run).
func diffProtected(before, after []protectedEntry) []string {
	var ev []string
	matched := make([]bool, len(after))
	for _, b := range before {
		i := slices.IndexFunc(after, func(a protectedEntry) bool { return os.SameFile(a.fi, b.fi) })
		if i < 0 {
			ev = append(ev, "protected "+b.rel+" was removed")
			continue
		}
		matched[i] = true
		for _, d := range capLines(diffSnapshots(b.contents, after[i].contents)) {
			ev = append(ev, fmt.Sprintf("protected %s: %s", b.rel, d))
		}
	}
	for i, a := range after {
		if !matched[i] {
			ev = append(ev, "a new "+a.rel+" was left in the working directory")
		}
	}
	return ev
}

// capLines keeps the first few of many lines.
func capLines(lines []string) []string {
	const max = 4
	if len(lines) <= max {
		return lines
	}
	return append(lines[:max:max], fmt.Sprintf("and %d more", len(lines)-max))
}

// gitPlants runs, outside the sandbox, the git commands a person runs
// next (status, diff, commit's pre-commit hook, log on a terminal) in every repository of
// the working directory, with a clean configuration, and says whether a
// program the attempt planted ran; and it looks for a .git left with a
// planted configuration.
func (e *escapeEnv) gitPlants() []string {
	var ev []string
	dirs := []string{e.work}
	_ = filepath.WalkDir(e.work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" && p != filepath.Join(e.work, ".git") {
			dirs = append(dirs, filepath.Dir(p))
			if cfg := gitConfigOf(p); strings.Contains(cfg, e.mark) {
				ev = append(ev, fmt.Sprintf("%s was left with a planted configuration", strings.TrimPrefix(p, e.work+"/")))
			}
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		return nil
	})
	if cfg := gitConfigOf(filepath.Join(e.work, ".git")); strings.Contains(cfg, e.mark) {
		ev = append(ev, ".git was left with a planted configuration")
	}
	ran := filepath.Join(e.base, "plant-ran")
	for _, dir := range dirs {
		_ = os.WriteFile(filepath.Join(dir, "README.txt"), []byte("a change for git diff\n"), 0o644)
		for _, c := range []struct {
			what     string
			args     []string
			terminal bool // its output on a terminal, where git starts its pager
		}{
			{"git status", []string{"status"}, false},
			{"git diff", []string{"diff"}, false},
			// What git commit runs first, without making a commit.
			{"git commit (its pre-commit hook)", []string{"hook", "run", "--ignore-missing", "pre-commit"}, false},
			{"git log on a terminal", []string{"log", "-1"}, true},
		} {
			if c.terminal {
				e.hostGitOnTerminal(dir, c.args...)
			} else {
				e.hostGitQuiet(dir, c.args...)
			}
			if b, err := os.ReadFile(ran); err == nil {
				ev = append(ev, fmt.Sprintf("a planted program ran at the person's next %s in %s: %q", c.what, strings.TrimPrefix(dir, e.base+"/"), strings.TrimSpace(string(b))))
				os.Remove(ran)
			}
		}
	}
	return ev
}

// gitConfigOf returns the configuration of the repository a .git entry
// (directory or gitdir: file) names.
func gitConfigOf(dotGit string) string {
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	dir := dotGit
	if !fi.IsDir() {
		b, _ := os.ReadFile(dotGit)
		target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		dir = strings.TrimSpace(target)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(dotGit), dir)
		}
	}
	var all []byte
	for _, p := range []string{"config", "config.worktree"} {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		all = append(all, b...)
	}
	return string(all)
}

// hostGitEnv is a clean environment for git outside the sandbox: no
// system or global configuration, no pager set by the environment.
func (e *escapeEnv) hostGitEnv() []string {
	home := filepath.Join(e.base, "githome")
	_ = os.MkdirAll(home, 0o755)
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm", "LANG=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=person@example.com",
		"GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// gitInit makes dir a repository with one commit of README.txt, without
// git's sample hooks (an empty hooks directory), which would only cost
// time.
func (e *escapeEnv) gitInit(dir string) {
	e.hostGit(dir, "init", "-q", "--template=")
	must(e.t, os.Mkdir(filepath.Join(dir, ".git", "hooks"), 0o755))
	e.hostGit(dir, "add", "README.txt")
	e.hostGit(dir, "commit", "-q", "-m", "first")
}

// hostGit runs git outside the sandbox to set an attempt up.
func (e *escapeEnv) hostGit(dir string, args ...string) {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir, cmd.Env = dir, e.hostGitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// hostGitQuiet runs git as the person would after the run; its failure
// is no concern here, only what it runs.
func (e *escapeEnv) hostGitQuiet(dir string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, e.hostGitEnv()
	_ = cmd.Run()
}

// hostGitOnTerminal runs git with its output on a terminal, where it
// starts its pager.
func (e *escapeEnv) hostGitOnTerminal(dir string, args ...string) {
	master, slave, _, err := openPty()
	if err != nil {
		e.t.Logf("no terminal for git's pager (%v); core.pager is checked by the configuration left only", err)
		return
	}
	defer master.Close()
	go func() { _, _ = io.Copy(io.Discard, master) }()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, e.hostGitEnv()
	cmd.Stdout, cmd.Stderr = slave, slave
	_ = cmd.Run()
	slave.Close()
}

// openPty opens a new pseudo-terminal: its master and its slave
// (neither the test's controlling terminal) and the slave's path.
func openPty() (master, slave *os.File, name string, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, "", err
	}
	fd := int(master.Fd())
	if err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err == nil {
		var n uint32
		if n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN); err == nil {
			name = "/dev/pts/" + strconv.Itoa(int(n))
			slave, err = os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
		}
	}
	if err != nil {
		master.Close()
		return nil, nil, "", err
	}
	return master, slave, name, nil
}

// report logs the counts and writes the table to $AGENTSH_ESCAPE_TABLE.
func (s *escapeSuite) report(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cols := []string{"bwrap", "landlock", "off"}
	for _, b := range cols {
		counts := map[string]int{}
		for _, r := range s.results[b] {
			word, _, _ := strings.Cut(r, ":")
			counts[strings.Trim(word, "*")]++
		}
		if why := s.skipped[b]; why != "" {
			t.Logf("%s: did not run: %s", b, why)
		} else {
			t.Logf("%s: %v", b, counts)
		}
	}
	name := os.Getenv("AGENTSH_ESCAPE_TABLE")
	if name == "" {
		return
	}
	var b strings.Builder
	b.WriteString("| # | Attempt | Category | bwrap | landlock | unconfined (control) |\n|---|---|---|---|---|---|\n")
	for i, a := range escapeAttempts {
		cell := func(backend string) string {
			if r := s.results[backend][a.name]; r != "" {
				return strings.ReplaceAll(r, "|", `\|`)
			}
			if backend == "off" {
				return "—"
			}
			if s.skipped[backend] != "" {
				return "not run"
			}
			return "?"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", i+1, strings.ReplaceAll(a.name, "|", `\|`), a.category, cell("bwrap"), cell("landlock"), cell("off"))
	}
	for _, backend := range cols {
		if why := s.skipped[backend]; why != "" {
			fmt.Fprintf(&b, "\n%s did not run: %s\n", backend, why)
		}
	}
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Errorf("AGENTSH_ESCAPE_TABLE: %v", err)
	}
}

// errNoHostIP is why the attempts on a non-loopback address skip.
var errNoHostIP = errors.New("this machine has no non-loopback IPv4 address")
