//go:build amd64 || arm64

package process

import (
	"context"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// needLandlock skips the test when the kernel's Landlock is older than
// the backend needs.
func needLandlock(t *testing.T) {
	t.Helper()
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		t.Skipf("the kernel has no usable Landlock (%v); the landlock backend needs ABI %d", err, llMinABI)
	}
	if abi < llMinABI {
		t.Skipf("the kernel has Landlock ABI %d; the landlock backend needs ABI %d", abi, llMinABI)
	}
}

// newLandlock returns a Sandbox on the landlock backend for a new working
// directory holding files (path: content; a name ending in / is a
// directory).
func newLandlock(t *testing.T, files map[string]string) (*Sandbox, string) {
	t.Helper()
	needLandlock(t)
	root := realTempDir(t)
	writeTree(t, root, files)
	s, err := NewSandbox(root, SandboxConfig{Backend: "landlock", Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != "landlock" {
		t.Fatalf("with Landlock ABI %d or later: backend %q: %v", llMinABI, s.Backend(), s.Unavailable())
	}
	return s, root
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// sh runs script in the sandbox under the workspace profile, with PATH
// limited to the system's directories (the person's PATH may lead into
// their home directory, which the sandbox hides).
func sh(t *testing.T, s *Sandbox, p Profile, script string) ExecResult {
	t.Helper()
	res, err := execT(t, s.Ops(p), context.Background(), ExecRequest{Args: bash(script), Env: []string{"PATH=" + DefaultPath}})
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return res
}

func fileIs(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s: %q, %v; want %q", path, got, err, want)
	}
}

func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists", path)
	}
}

// rights is what the rules grant on path: the union over the rules on it
// and on the directories above it, as Landlock has it.
func rights(rules []llRule, path string, dir bool) uint64 {
	var got uint64
	for _, r := range rules {
		if within(r.path, path) {
			got |= r.access
		}
	}
	if !dir {
		got &= llFileRights
	}
	return got
}

// TestLandlockRules checks the rule set of a workspace run on a stand-in
// for the system's root, laid out as a machine is: read and execute on
// the system, nothing in the home directory, the temporary directories,
// /run and /dev but five devices; the working directory writable but its
// protected entries (read only) and secrets (nothing); directories above
// those split.
func TestLandlockRules(t *testing.T) {
	sys := realTempDir(t)
	writeTree(t, sys, map[string]string{
		"usr/bin/ls": "", "etc/passwd": "", "var/lib/x": "", "var/tmp/x": "",
		"tmp/other/marker": "", "run/secret": "", "dev/null": "", "dev/zero": "", "dev/sda": "", "dev/shm/seg": "",
		"home/u/.ssh/id_rsa": "", "home/u/notes": "", "home/v/file": "",
		"home/u/work/.git/config":           "",
		"home/u/work/.git/hooks/":           "",
		"home/u/work/.env":                  "",
		"home/u/work/.env.example":          "",
		"home/u/work/go.mod":                "",
		"home/u/work/src/main.go":           "",
		"home/u/work/sub/.git":              "gitdir: x",
		"home/u/work/sub/code.go":           "",
		"home/u/work/.claude/settings.json": "",
		"home/u/work/conf/app.pem":          "",
		"home/u/work/conf/app.yaml":         "",
		"home/u/work/.aws/credentials":      "",
		"home/u/work/real.env":              "",
		"tmp/agentsh-sandbox-1/home/":       "",
	})
	must(t, os.Symlink("real.env", filepath.Join(sys, "home/u/work/.env.local")))
	must(t, os.Symlink("usr/bin", filepath.Join(sys, "bin")))
	work := filepath.Join(sys, "home/u/work")
	private := filepath.Join(sys, "tmp/agentsh-sandbox-1")
	full := llFSRights(llMinABI)
	rw := full &^ llMakeDevices
	for _, profile := range []Profile{ProfileWorkspace, ProfileReadOnly} {
		pl, err := newPlan(work, profile, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		pl.home = filepath.Join(sys, "home/u")
		rules := llRules(pl, private, full, sys)
		for _, r := range rules {
			if r.access&^full != 0 || r.access&llMakeDevices != 0 || (!r.dir && r.access&^llFileRights != 0) {
				t.Errorf("%s: rule for %s grants %#x", profile, r.path, r.access)
			}
		}
		wantWork, wantFile := rw, rw&llFileRights
		if profile == ProfileReadOnly {
			wantWork, wantFile = llRead, llRead&llFileRights
		}
		for _, c := range []struct {
			path string
			dir  bool
			want uint64
		}{
			{"usr/bin/ls", false, llRead & llFileRights},
			{"etc", true, llRead},
			{"var/lib/x", false, llRead & llFileRights},
			{"home/v/file", false, llRead & llFileRights},
			// The directories on the way to what is carved out: names only.
			{"", true, ll.AccessFSReadDir},
			{"home", true, ll.AccessFSReadDir},
			{"var", true, ll.AccessFSReadDir},
			{"home/u", true, ll.AccessFSReadDir},
			{"home/u/notes", false, 0},
			{"home/u/.ssh/id_rsa", false, 0},
			{"tmp/other/marker", false, 0},
			{"var/tmp/x", false, 0},
			{"run/secret", false, 0},
			{"dev/sda", false, 0},
			{"dev/shm/seg", false, 0},
			{"dev/null", false, llDevice},
			{"dev/zero", false, llDevice},
			// The working directory's root holds .git: split.
			{"home/u/work", true, ll.AccessFSReadDir},
			{"home/u/work/go.mod", false, wantFile},
			{"home/u/work/src", true, wantWork},
			{"home/u/work/src/main.go", false, wantFile},
			{"home/u/work/.git", true, llRead},
			{"home/u/work/.git/config", false, llRead & llFileRights},
			{"home/u/work/.git/hooks", true, llRead},
			{"home/u/work/sub", true, map[Profile]uint64{ProfileWorkspace: ll.AccessFSReadDir, ProfileReadOnly: llRead}[profile]},
			{"home/u/work/sub/.git", false, llRead & llFileRights},
			{"home/u/work/sub/code.go", false, wantFile},
			{"home/u/work/.claude/settings.json", false, llRead & llFileRights},
			{"home/u/work/.env", false, 0},
			{"home/u/work/.env.example", false, wantFile},
			{"home/u/work/conf", true, ll.AccessFSReadDir},
			{"home/u/work/conf/app.pem", false, 0},
			{"home/u/work/conf/app.yaml", false, wantFile},
			{"home/u/work/.aws/credentials", false, 0},
			// .env.local is a secret and a link: what it leads to is too.
			{"home/u/work/real.env", false, 0},
			{"tmp/agentsh-sandbox-1", true, rw},
			{"tmp/agentsh-sandbox-1/home", true, rw},
		} {
			if got := rights(rules, filepath.Join(sys, c.path), c.dir); got != c.want {
				t.Errorf("%s: %s: rights %#x, want %#x", profile, c.path, got, c.want)
			}
		}
	}

	// A home directory inside the working directory is carved out of it.
	pl, err := newPlan(work, ProfileWorkspace, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	pl.home = filepath.Join(work, "src")
	rules := llRules(pl, private, full, sys)
	if got := rights(rules, filepath.Join(work, "src/main.go"), false); got != 0 {
		t.Errorf("a file in a home directory inside the working directory: rights %#x", got)
	}
	if got := rights(rules, filepath.Join(work, "go.mod"), false); got != rw&llFileRights {
		t.Errorf("go.mod next to that home directory: rights %#x", got)
	}
}

// TestLandlockWrites: the working directory is writable but for its
// protected entries; nothing outside is, not through a link or a hard
// link either; in a directory that holds a protected entry, files can be
// written but not made, removed or renamed (the one difference from
// Bubblewrap).
func TestLandlockWrites(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, map[string]string{
		".git/config": "[core]\n", ".git/hooks/": "", ".claude/settings.json": "{}",
		"top.txt": "top\n", "sub/": "", "sub/deep/": "",
	})
	outside := realTempDir(t)
	writeTree(t, outside, map[string]string{"target": "outside\n"})

	res := sh(t, s, ProfileWorkspace, `cd sub && echo hi > new.txt && mkdir -p a/b && echo x > a/b/c && mv new.txt deep/moved.txt && ln deep/moved.txt linked && rm a/b/c && echo ok`)
	if res.ExitCode != 0 || string(res.Output) != "ok\n" {
		t.Fatalf("writes in a subdirectory: %+v %q", res, res.Output)
	}
	fileIs(t, filepath.Join(root, "sub/deep/moved.txt"), "hi\n")
	fileIs(t, filepath.Join(root, "sub/linked"), "hi\n")

	for _, script := range []string{
		`echo '[core] fsmonitor = touch /tmp/x' >> .git/config`,
		`echo '#!/bin/sh' > .git/hooks/pre-commit`,
		`echo '{"allow":"*"}' > .claude/settings.json`,
		`mv sub/deep/moved.txt .git/hooks/pre-commit`,
		`rm .git/config`,
		`mv .git git-moved`,
		`echo x > ` + outside + `/target`,
		`echo x > ` + outside + `/new`,
		`ln -s ` + outside + `/target sub/out && echo x > sub/out`,
		`ln ` + outside + `/target sub/hard && echo x > sub/hard`,
		`ln .git/config sub/cfg && echo x >> sub/cfg`,
		`mv ` + outside + `/target sub/moved-in`,
		`echo x > /proc/self/root` + outside + `/target`,
		// The split directory: new entries, removal and renames refused.
		`echo x > new-at-root`,
		`rm top.txt`,
		`mv sub sub2`,
	} {
		if res := sh(t, s, ProfileWorkspace, script); res.ExitCode == 0 {
			t.Errorf("%s: exit 0, want a refusal: %q", script, res.Output)
		}
	}
	fileIs(t, filepath.Join(root, ".git/config"), "[core]\n")
	fileIs(t, filepath.Join(root, ".claude/settings.json"), "{}")
	fileIs(t, filepath.Join(outside, "target"), "outside\n")
	for _, p := range []string{".git/hooks/pre-commit", "git-moved", "new-at-root", "sub2", "sub/hard", "sub/cfg", "sub/moved-in"} {
		absent(t, filepath.Join(root, p))
	}
	absent(t, filepath.Join(outside, "new"))
	fileIs(t, filepath.Join(root, "top.txt"), "top\n")

	// An existing file in the split directory is written in place.
	if res := sh(t, s, ProfileWorkspace, `echo more >> top.txt`); res.ExitCode != 0 {
		t.Errorf("append to top.txt: %+v %q", res, res.Output)
	}
	fileIs(t, filepath.Join(root, "top.txt"), "top\nmore\n")

	// Read-only: nothing in the working directory is writable.
	for _, script := range []string{`echo x > sub/ro.txt`, `echo x >> top.txt`, `mkdir sub/d`} {
		if res := sh(t, s, ProfileReadOnly, script); res.ExitCode == 0 {
			t.Errorf("read-only: %s: exit 0", script)
		}
	}
	if res := sh(t, s, ProfileReadOnly, `cat top.txt sub/deep/moved.txt && ls sub`); res.ExitCode != 0 {
		t.Errorf("read-only reads: %+v %q", res, res.Output)
	}
	absent(t, filepath.Join(root, "sub/ro.txt"))
}

// TestLandlockRuleNotThroughLinks: a rule whose path leads through a link
// (a directory a command swapped for one) grants nothing.
func TestLandlockRuleNotThroughLinks(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	c, err := newLandlockConfiner()
	if err != nil {
		t.Fatal(err)
	}
	root, outside := realTempDir(t), realTempDir(t)
	writeTree(t, outside, map[string]string{"target": "outside\n"})
	must(t, os.Symlink(outside, filepath.Join(root, "swapped")))
	req := ExecRequest{Args: bash(`echo x > swapped/target; echo x > ` + outside + `/target`)}
	pl, err := newPlan(root, ProfileWorkspace, SandboxConfig{}, req)
	if err != nil {
		t.Fatal(err)
	}
	rules := append(llRules(pl, root, llFSRights(llMinABI), "/"),
		llRule{filepath.Join(root, "swapped/target"), llFileRights, false},
		llRule{filepath.Join(root, "swapped"), llFSRights(llMinABI), true})
	ruleset, err := c.(*landlockConfiner).ruleset(rules, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ruleset)
	filter, err := landlockFilter(false, 7)
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: pl.program, Args: req.Args, Dir: pl.dir, Env: pl.env,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pgid: 7 << 32, Pdeathsig: syscall.SIGKILL}}
	cfg := runConfig{confine: func() (func(), error) { return confineThread(ruleset, filter) }}
	res, err := run(context.Background(), cmd, req, cfg, groupStopper{})
	if err != nil || strings.Count(string(res.Output), "Permission denied") != 2 {
		t.Errorf("%+v %q, %v; want both writes refused", res, res.Output, err)
	}
	fileIs(t, filepath.Join(outside, "target"), "outside\n")
}

// TestLandlockNested: agentsh inside its own Landlock sandbox (an agent
// running agentsh's tests, say) finds that the backend cannot confine
// there, rather than have every command killed.
func TestLandlockNested(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	if err := checkGroupCookie(); err != nil {
		t.Fatalf("outside any sandbox: %v", err)
	}
	c, err := newLandlockConfiner()
	if err != nil {
		t.Fatal(err)
	}
	ruleset, err := c.(*landlockConfiner).ruleset(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ruleset)
	filter, err := landlockFilter(false, 7)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		lockThread() // never unlocked: the thread ends with the goroutine
		if _, err := confineThread(ruleset, filter); err != nil {
			errc <- err
			return
		}
		errc <- checkGroupCookie()
	}()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "agentsh runs inside another sandbox") {
		t.Errorf("inside the sandbox: %v", err)
	}
}

// TestLandlockSecrets: secret files cannot be read, read-only or not,
// whatever the name they are reached by; the examples can.
func TestLandlockSecrets(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, map[string]string{
		".env": "TOKEN=secret-env", ".env.example": "TOKEN=example", "conf/app.pem": "secret-pem",
		".aws/credentials": "secret-aws", "real.conf": "secret-linked",
	})
	must(t, os.Symlink("real.conf", filepath.Join(root, ".env.local")))
	for _, p := range []Profile{ProfileWorkspace, ProfileReadOnly} {
		res := sh(t, s, p, `cat .env; cat conf/app.pem; cat .aws/credentials; cat .env.local; cat real.conf; cp .env copied; cat .env.example`)
		if out := string(res.Output); strings.Contains(out, "secret") || !strings.HasSuffix(out, "TOKEN=example") {
			t.Errorf("%s: %q; want no secret and the example", p, out)
		}
		absent(t, filepath.Join(root, "copied"))
	}
	if res := sh(t, s, ProfileWorkspace, `echo x > .env; rm conf/app.pem; echo x > .aws/credentials`); res.ExitCode == 0 {
		t.Errorf("writes to secrets: %q", res.Output)
	}
	fileIs(t, filepath.Join(root, ".env"), "TOKEN=secret-env")
	fileIs(t, filepath.Join(root, "conf/app.pem"), "secret-pem")
}

// TestLandlockHome: the person's home directory cannot be read, where it
// is; the command's HOME is an empty directory of its own, and so is its
// TMPDIR, which is gone after the run. Not parallel: it sets HOME.
func TestLandlockHome(t *testing.T) {
	needLandlock(t)
	home := realTempDir(t)
	writeTree(t, home, map[string]string{".ssh/id_ed25519": "secret-key", "notes.txt": "secret-notes"})
	t.Setenv("HOME", home)
	s, root := newLandlock(t, map[string]string{"f": "x"})
	res := sh(t, s, ProfileWorkspace, `cat `+home+`/notes.txt `+home+`/.ssh/id_ed25519; echo "home=$HOME tmp=$TMPDIR"; ls -A "$HOME"; echo in-home > "$HOME/x" && cat "$HOME/x" && echo in-tmp > "$TMPDIR/y" && cat "$TMPDIR/y"`)
	out := string(res.Output)
	if strings.Contains(out, "secret") || !strings.Contains(out, "in-home\nin-tmp\n") {
		t.Fatalf("%q", out)
	}
	var gotHome, gotTmp string
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "home="); ok {
			gotHome = v
		}
		if v, ok := strings.CutPrefix(f, "tmp="); ok {
			gotTmp = v
		}
	}
	if gotHome == "" || gotHome == home || !strings.HasPrefix(gotHome, gotTmp+"/") {
		t.Errorf("HOME %q, TMPDIR %q; want a home of the run's own in its TMPDIR", gotHome, gotTmp)
	}
	absent(t, gotTmp)

	// A home directory inside the working directory is hidden there.
	inside := filepath.Join(root, "home")
	writeTree(t, inside, map[string]string{"notes.txt": "secret-inside"})
	t.Setenv("HOME", inside)
	res = sh(t, s, ProfileWorkspace, `cat home/notes.txt; cat f`)
	if out := string(res.Output); strings.Contains(out, "secret") || !strings.HasSuffix(out, "x") {
		t.Errorf("home inside the working directory: %q", out)
	}
}

// TestLandlockHostTmp: other temporary files on the host can be neither
// read nor written; the run's own TMPDIR is removed after a timeout too.
func TestLandlockHostTmp(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, nil)
	other := realTempDir(t)
	writeTree(t, other, map[string]string{"marker": "secret-tmp"})
	res := sh(t, s, ProfileWorkspace, `cat `+other+`/marker; echo x > `+other+`/new; echo x > /tmp/agentsh-landlock-test-$$; cat /dev/shm/* 2>/dev/null; echo end`)
	if out := string(res.Output); strings.Contains(out, "secret") || !strings.HasSuffix(out, "end\n") {
		t.Errorf("%q", out)
	}
	absent(t, filepath.Join(other, "new"))
	if m, _ := filepath.Glob("/tmp/agentsh-landlock-test-*"); len(m) > 0 {
		t.Errorf("written in /tmp: %v", m)
	}

	// The private directory goes, whatever the command left in it.
	res = timeoutWhenReady(t, s.Ops(ProfileWorkspace), ExecRequest{
		Args: bash(`echo "$TMPDIR" > where && mkdir -p "$TMPDIR/d/e" && touch "$TMPDIR/d/e/f" && (umask 0777 && mkdir "$TMPDIR/d/e/locked") && touch ready && sleep 100`),
	}, filepath.Join(root, "ready"))
	if !res.TimedOut {
		t.Fatalf("%+v %q", res, res.Output)
	}
	where, err := os.ReadFile(filepath.Join(root, "where"))
	if err != nil || !strings.Contains(string(where), "agentsh-sandbox-") {
		t.Fatalf("where: %q, %v", where, err)
	}
	absent(t, strings.TrimSpace(string(where)))
}

// TestLandlockNoNetwork: no connection to a listener on the loopback
// interface, which the same command reaches outside the sandbox; no UDP
// or unix sockets either.
func TestLandlockNoNetwork(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, nil)
	accepted := assertNoTCP(t, root, s.Ops(ProfileWorkspace))
	for _, script := range []string{
		`exec 3<>/dev/udp/127.0.0.1/53 && echo udp`,
		`/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("\0x")' 2>/dev/null && echo unix`,
		`/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_INET6)' 2>/dev/null && echo tcp6`,
	} {
		if res := sh(t, s, ProfileWorkspace, script); res.ExitCode == 0 {
			t.Errorf("%s: %q", script, res.Output)
		}
	}
	if accepted() != 0 {
		t.Error("the listener accepted a connection from the sandbox")
	}
}

// TestLandlockProxyOnly: with an allow list, TCP reaches the proxy's port
// and no other.
func TestLandlockProxyOnly(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	c, err := newLandlockConfiner()
	if err != nil {
		t.Fatal(err)
	}
	var ports [2]string
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Skip(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		ports[i] = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	req := ExecRequest{Args: bash(`exec 3<>/dev/tcp/127.0.0.1/` + ports[0] + ` && echo proxy; exec 4<>/dev/tcp/127.0.0.1/` + ports[1] + ` && echo other; exec 5<>/dev/udp/127.0.0.1/53 && echo udp; /usr/bin/python3 -c 'import socket; socket.socket().listen(1)' 2>/dev/null && echo listen; echo "$HTTPS_PROXY"`)}
	pl, err := newPlan(realTempDir(t), ProfileWorkspace, SandboxConfig{}, req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.(*landlockConfiner).runProxy(context.Background(), pl, req, runConfig{}, "127.0.0.1:"+ports[0])
	if out := string(res.Output); err != nil || !strings.HasPrefix(out, "proxy\n") || strings.Contains(out, "\nother\n") || strings.Contains(out, "\nudp\n") || strings.Contains(out, "\nlisten\n") || !strings.HasSuffix(out, "\nhttp://127.0.0.1:"+ports[0]+"\n") {
		t.Errorf("%q, %v; want the proxy's port only, and HTTPS_PROXY", res.Output, err)
	}
}

// TestLandlockProxyCurl: with an allow list, a sandboxed curl reaches an
// allowed host through agentsh's proxy, is refused an unlisted one, and
// reaches nothing around the proxy.
func TestLandlockProxyCurl(t *testing.T) {
	t.Parallel()
	needCurl(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	s, root := newLandlock(t, nil)
	must(t, s.SetAllowHosts([]string{"example.com:" + port}))
	s.proxyOpts = proxyOptions{lookup: testLookup, allowLoopback: true}
	t.Cleanup(func() { s.Close() })
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	must(t, os.WriteFile(filepath.Join(root, "ca.crt"), ca, 0o644))
	curl := func(args ...string) ExecRequest {
		return ExecRequest{Args: append([]string{"curl", "-sS", "--max-time", "20", "--cacert", "ca.crt"}, args...), Env: []string{"PATH=" + DefaultPath}}
	}
	for _, p := range []Profile{ProfileWorkspace, ProfileReadOnly} {
		res, err := execT(t, s.Ops(p), context.Background(), curl("https://example.com:"+port+"/x"))
		if err != nil || res.ExitCode != 0 || string(res.Output) != "hello /x" {
			t.Errorf("%s: allowed host: %+v %q, %v", p, res, res.Output, err)
		}
	}
	for _, tc := range []struct {
		req  ExecRequest
		want string
	}{
		{curl("https://other.test:" + port + "/"), "CONNECT tunnel failed, response 403"},
		{curl("--noproxy", "*", "https://127.0.0.1:"+port+"/"), "Couldn't connect to server"},
	} {
		res, err := execT(t, s.Ops(ProfileWorkspace), context.Background(), tc.req)
		if err != nil || res.ExitCode == 0 || !strings.Contains(string(res.Output), tc.want) {
			t.Errorf("%q: %+v %q, %v; want %q", tc.req.Args, res, res.Output, err, tc.want)
		}
	}
}

// TestLandlockProcessGroup: nothing leaves the command's process group,
// a guess at the group's cookie kills the guesser, and what the command
// leaves running is killed when it exits.
func TestLandlockProcessGroup(t *testing.T) {
	t.Parallel()
	s, _ := newLandlock(t, nil)
	tag := fmt.Sprintf("98.%06d1", time.Now().UnixNano()/1000%1000000)
	script := fmt.Sprintf(`setsid true; echo "setsid=$?"
/usr/bin/python3 -c 'import os; os.setsid()' 2>/dev/null; echo "pysetsid=$?"
/usr/bin/python3 -c 'import os; os.setpgid(0, 0)' 2>/dev/null; echo "setpgid=$?"
/usr/bin/python3 -c 'import ctypes; ctypes.CDLL(None).syscall(%[2]d, 0, ctypes.c_long(5 << 32))' 2>/dev/null; echo "guess=$?"
sleep %[1]s &
(sleep %[1]s &)
nohup sleep %[1]s >/dev/null 2>&1 &
echo "pgid=$(ps -o pgid= $$ | tr -d ' ') pid=$$"`, tag, unix.SYS_SETPGID)
	res := sh(t, s, ProfileWorkspace, script)
	out := string(res.Output)
	for _, want := range []string{"setsid=1\n", "pysetsid=1\n", "setpgid=1\n", "guess=159\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in %q", want, out)
		}
	}
	var pgid, pid string
	if i := strings.LastIndex(out, "\npgid="); i >= 0 {
		fmt.Sscanf(out[i+1:], "pgid=%s pid=%s", &pgid, &pid)
	}
	if pgid == "" || pgid != pid {
		t.Errorf("the command's process group %q, its pid %q: want it to lead its own (%q)", pgid, pid, out)
	}
	if left := sandboxProcs(tag); len(left) > 0 {
		t.Errorf("processes left: %v", left)
		for _, p := range left {
			n, _ := strconv.Atoi(p)
			_ = killPid(n)
		}
	}
}

// TestLandlockSweepsDomain: a process that leaves the process group all
// the same (here under a filter that lets setsid through, as a guessed
// cookie would) is killed once the command exits; a process of the same
// user outside the run is not.
func TestLandlockSweepsDomain(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	root := realTempDir(t)
	c, err := newLandlockConfiner()
	if err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("97.%06d1", time.Now().UnixNano()/1000%1000000)
	outside := exec.Command("sleep", tag)
	must(t, outside.Start())
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()

	// The command returns once the sleep has a session of its own.
	req := ExecRequest{Args: bash(`setsid sh -c 'ps -o sid= $$ > sid; exec sleep ` + tag + `' & while [ ! -s sid ]; do sleep 0.01; done; echo "$(ps -o sid= $$) $(cat sid)"`), Env: []string{"PATH=" + DefaultPath}}
	pl, err := newPlan(root, ProfileWorkspace, SandboxConfig{}, req)
	if err != nil {
		t.Fatal(err)
	}
	ruleset, err := c.(*landlockConfiner).ruleset(llRules(pl, root, llFSRights(llMinABI), "/"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ruleset)
	raw, err := assembleFilter(commonRules, legacyRules) // no rules on sessions
	if err != nil {
		t.Fatal(err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	cmd := &exec.Cmd{Path: pl.program, Args: req.Args, Dir: pl.dir, Env: pl.env, SysProcAttr: sysProcAttr()}
	cfg := runConfig{confine: func() (func(), error) { return confineThread(ruleset, filter) }}
	res, err := run(context.Background(), cmd, req, cfg, groupStopper{})
	if sids := strings.Fields(string(res.Output)); err != nil || len(sids) != 2 || sids[0] == sids[1] {
		t.Fatalf("%+v %q, %v; want the sessions of the command and of the sleep, not the same", res, res.Output, err)
	}
	if left := sandboxProcs(tag); !slices.Equal(left, []string{strconv.Itoa(outside.Process.Pid)}) {
		t.Errorf("processes with the tag: %v; want only the one outside the run, %d", left, outside.Process.Pid)
	}
}

// TestLandlockSignals: a command cannot signal processes outside its run.
func TestLandlockSignals(t *testing.T) {
	t.Parallel()
	s, _ := newLandlock(t, nil)
	outside := exec.Command("sleep", "100")
	must(t, outside.Start())
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	res := sh(t, s, ProfileWorkspace, fmt.Sprintf(`kill -9 %d; kill -0 %d; kill -0 1; echo end`, outside.Process.Pid, os.Getpid()))
	if out := string(res.Output); strings.Count(out, "Operation not permitted") != 3 || !strings.HasSuffix(out, "end\n") {
		t.Errorf("%q; want three refusals", out)
	}
	if !alive(outside.Process.Pid) {
		t.Error("the process outside the run was killed")
	}
}

// TestLandlockPrivileges: no capabilities and no new privileges, though
// agentsh may run as root; no setuid files or device nodes left in the
// working directory; no namespaces, ptrace or terminal injection.
func TestLandlockPrivileges(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, nil)
	res := sh(t, s, ProfileWorkspace, `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status`)
	want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n"
	got := string(res.Output)
	if os.Geteuid() != 0 {
		// Without CAP_SETPCAP the bounding set stays; no_new_privs keeps
		// exec from granting any of it.
		_, rest, _ := strings.Cut(got, "CapBnd:")
		_, rest, _ = strings.Cut(rest, "\n")
		got, _, _ = strings.Cut(got, "CapBnd:")
		got += "CapBnd:\t0000000000000000\n" + rest
	}
	if got != want {
		t.Errorf("capabilities:\n%s\nwant\n%s", res.Output, want)
	}

	source := filepath.Join(root, setuidSource)
	must(t, os.WriteFile(source, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(source, 0o4755))
	for _, p := range setidPayloads {
		dir := strings.ReplaceAll(p.name, " ", "_")
		must(t, os.Mkdir(filepath.Join(root, dir), 0o755))
		_, err := execT(t, s.Ops(ProfileWorkspace), context.Background(), ExecRequest{
			Args: bash(p.script), Dir: dir, Env: []string{"SETUID_SOURCE=" + source, "PATH=" + DefaultPath},
		})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
	}
	must(t, os.Remove(source))
	if bad := setidFiles(t, root); len(bad) > 0 {
		t.Errorf("the sandbox left setuid, setgid or device files: %s", strings.Join(bad, ", "))
	}
	for _, script := range []string{
		`unshare -U true`, `unshare -m true`,
		`/usr/bin/python3 -c 'import ctypes; assert ctypes.CDLL(None).unshare(0x10000000) == 0'`,
		`/usr/bin/python3 -c 'import ctypes, os; assert ctypes.CDLL(None).ptrace(0, 0, 0, 0) == 0'`,
		`/usr/bin/python3 -c 'import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b"x")' </dev/null`,
		`mount -t tmpfs none sub 2>/dev/null`,
		`/usr/bin/python3 -c 'import os; os.openpty()'`,
		`cat /proc/1/environ`,
	} {
		if res := sh(t, s, ProfileWorkspace, script); res.ExitCode == 0 {
			t.Errorf("%s: exit 0: %q", script, res.Output)
		}
	}
}

// TestLandlockExec: exit codes, output, input, timeouts and cancellation
// as for LocalExec.
func TestLandlockExec(t *testing.T) {
	t.Parallel()
	s, root := newLandlock(t, map[string]string{"sub/": ""})
	ops := s.Ops(ProfileWorkspace)
	res, err := execT(t, ops, context.Background(), ExecRequest{
		Args: bash(`echo "$FOO"; cat; echo err >&2; pwd; exit 4`), Dir: "sub", Env: []string{"FOO=bar"}, Stdin: []byte("in\n"),
	})
	if err != nil || res.ExitCode != 4 || !strings.HasPrefix(string(res.Output), "bar\nin\nerr\n") || !strings.HasSuffix(string(res.Output), "/sub\n") {
		t.Errorf("got %+v %q, %v", res, res.Output, err)
	}
	for script, want := range map[string]int{`true`: 0, `exit 3`: 3, `kill -9 $$`: 137, `kill -TERM $$`: 143} {
		if res := sh(t, s, ProfileWorkspace, script); res.ExitCode != want {
			t.Errorf("%s: exit %d, want %d", script, res.ExitCode, want)
		}
	}
	if _, err := ops.Exec(context.Background(), ExecRequest{Args: []string{"agentsh-no-such-program"}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown program: %v", err)
	}
	// A program the sandbox hides: an error that says why.
	tool := filepath.Join(root, ".ssh/tool.sh")
	writeTree(t, root, map[string]string{".ssh/tool.sh": "#!/bin/sh\necho ran\n"})
	must(t, os.Chmod(tool, 0o755))
	if res, err := ops.Exec(context.Background(), ExecRequest{Args: []string{"./.ssh/tool.sh"}}); err == nil || !strings.Contains(err.Error(), "permission denied (the sandbox runs programs from the system and the working directory") {
		t.Errorf("a hidden program: %+v %q, %v", res, res.Output, err)
	}

	res, err = execT(t, ops, context.Background(), ExecRequest{Args: []string{"sleep", "100"}, Timeout: 200 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Canceled || res.ExitCode != 143 {
		t.Errorf("timeout: %+v, %v", res, err)
	}

	tag := fmt.Sprintf("96.%06d1", time.Now().UnixNano()/1000%1000000)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		for deadline := time.Now().Add(watchdog); len(sandboxProcs(tag)) < 2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("the sleeps never showed up")
				return
			}
		}
	})
	res, err = execT(t, ops, ctx, ExecRequest{Args: bash(`trap "" TERM; sleep ` + tag + ` & (trap "" TERM; exec sleep ` + tag + `) & wait`)})
	wg.Wait()
	if err != nil || !res.Canceled || res.ExitCode != 137 {
		t.Errorf("cancel, with SIGTERM ignored: %+v %q, %v; want Canceled with exit code 137", res, res.Output, err)
	}
	if left := sandboxProcs(tag); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}

	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := ops.Exec(done, ExecRequest{Args: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Errorf("canceled before the start: %v", err)
	}
}

// TestLandlockLeavesAgentshAlone: the threads runs were confined on are
// gone; agentsh's others can still read outside the working directory
// and open sockets, however many runs there were.
func TestLandlockLeavesAgentshAlone(t *testing.T) {
	t.Parallel()
	s, _ := newLandlock(t, nil)
	other := realTempDir(t)
	writeTree(t, other, map[string]string{"f": "readable"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 4 {
				if res, err := s.Exec(context.Background(), ProfileWorkspace, ExecRequest{Args: []string{"true"}}); err != nil || res.ExitCode != 0 {
					t.Errorf("true: %+v, %v", res, err)
				}
			}
		})
	}
	wg.Wait()
	for range 64 {
		wg.Go(func() {
			if b, err := os.ReadFile(filepath.Join(other, "f")); err != nil || string(b) != "readable" {
				t.Errorf("read outside: %q, %v", b, err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Errorf("listen: %v", err)
				return
			}
			ln.Close()
		})
	}
	wg.Wait()
}

// TestLandlockFilterVerdicts evaluates the backend's seccomp filter.
func TestLandlockFilterVerdicts(t *testing.T) {
	const (
		allow  = unix.SECCOMP_RET_ALLOW
		kill   = unix.SECCOMP_RET_KILL_PROCESS
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		cookie = 0x5eed1e55
	)
	for _, network := range []bool{false, true} {
		f, err := landlockFilter(network, cookie)
		if err != nil {
			t.Fatal(err)
		}
		prog := make([]bpf.RawInstruction, len(f))
		for i, ins := range f {
			prog[i] = bpf.RawInstruction{Op: ins.Code, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
		}
		tcp := eperm
		if network {
			tcp = allow
		}
		calls := []filterCall{
			{"read", unix.SYS_READ, []uint64{0, 0, 1}, allow},
			{"fchmod 04755 (the sandbox's rules hold)", unix.SYS_FCHMOD, []uint64{3, 0o4755}, eperm},
			{"setpgid, the command's own", unix.SYS_SETPGID, []uint64{0, cookie << 32}, allow},
			{"setpgid(0, 0)", unix.SYS_SETPGID, []uint64{0, 0}, eperm},
			{"setpgid(pid, pid)", unix.SYS_SETPGID, []uint64{1234, 1234}, eperm},
			{"setpgid(0, -1)", unix.SYS_SETPGID, []uint64{0, ^uint64(0)}, eperm},
			{"setpgid, a wrong guess", unix.SYS_SETPGID, []uint64{0, (cookie + 1) << 32}, kill},
			{"setpgid, the cookie for another pid", unix.SYS_SETPGID, []uint64{1234, cookie << 32}, kill},
			{"setpgid, the cookie in the pid's high half", unix.SYS_SETPGID, []uint64{cookie << 32, 0}, eperm},
			{"setsid", unix.SYS_SETSID, nil, eperm},
			{"socket AF_INET stream", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0}, tcp},
			{"socket AF_INET6 stream TCP", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, tcp},
			{"socket AF_INET stream SCTP", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eperm},
			{"socket AF_INET dgram", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM, 0}, eperm},
			{"socket AF_INET raw", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_RAW, 1}, eperm},
			{"socket AF_UNIX stream", unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, eperm},
			{"socket AF_NETLINK", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, eperm},
			{"socketpair AF_UNIX", unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0, 0}, allow},
			{"ioctl TIOCSTI", unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI, 0}, eperm},
			{"ioctl TIOCLINUX", unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX, 0}, eperm},
			{"ioctl TCGETS", unix.SYS_IOCTL, []uint64{0, unix.TCGETS, 0}, allow},
			{"clone a thread", unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
			{"clone a process", unix.SYS_CLONE, []uint64{unix.CLONE_VFORK | unix.CLONE_VM | unix.CLONE_PIDFD | uint64(unix.SIGCHLD)}, allow},
			{"clone a user namespace", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
			{"clone a network namespace", unix.SYS_CLONE, []uint64{unix.CLONE_NEWNET}, eperm},
			{"clone3", unix.SYS_CLONE3, []uint64{0, 88}, enosys},
		}
		for _, nr := range refusedCalls {
			calls = append(calls, filterCall{fmt.Sprintf("system call %d", nr), nr, nil, eperm})
		}
		for _, c := range calls {
			if got := runProg(t, prog, auditArch, c.nr, c.args...); got != c.want {
				t.Errorf("network %v: %s: verdict %#x, want %#x", network, c.name, got, c.want)
			}
		}
	}
}

// TestLandlockProxyPort: the one port a command may connect to is the
// proxy's.
func TestLandlockProxyPort(t *testing.T) {
	if got, err := proxyPort("127.0.0.1:8123"); err != nil || got != 8123 {
		t.Errorf("127.0.0.1:8123: %d, %v", got, err)
	}
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:0", "[::1]:99999", "", "127.0.0.1:http"} {
		if got, err := proxyPort(addr); err == nil {
			t.Errorf("%q: port %d, no error", addr, got)
		}
	}
}
