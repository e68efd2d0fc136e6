package process

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newProxySandbox returns a Bubblewrap Sandbox for a new root whose runs
// may reach allow through a proxy that resolves with testLookup and lets
// names resolve to the loopback, or skips the test when bwrap cannot run.
func newProxySandbox(t *testing.T, allow []string) (*Sandbox, string) {
	t.Helper()
	root := realTempDir(t)
	s, err := NewSandbox(root, SandboxConfig{Backend: "bwrap", AllowHosts: allow, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Unavailable(); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	s.proxyOpts = proxyOptions{lookup: testLookup, allowLoopback: true}
	t.Cleanup(func() { s.Close() })
	return s, root
}

func needCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed; the sandboxed network tests run it (Debian/Ubuntu: apt-get install curl)")
	}
}

func sandboxExec(t *testing.T, s *Sandbox, p Profile, req ExecRequest) ExecResult {
	t.Helper()
	res, err := execT(t, s.Ops(p), context.Background(), req)
	if err != nil {
		t.Fatalf("%q: %v", req.Args, err)
	}
	return res
}

// TestBridgeCurl: a sandboxed curl reaches an allowed host through the
// bridge and the proxy, is refused an unlisted one, and reaches nothing on
// the host directly.
func TestBridgeCurl(t *testing.T) {
	t.Parallel()
	needCurl(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain") }))
	t.Cleanup(plain.Close)

	s, root := newProxySandbox(t, []string{"example.com:" + port})
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	must(t, os.WriteFile(filepath.Join(root, "ca.crt"), ca, 0o644))
	curl := func(args ...string) []string {
		return append([]string{"curl", "-sS", "--max-time", "20", "--cacert", "ca.crt"}, args...)
	}

	for _, p := range []Profile{ProfileWorkspace, ProfileReadOnly} {
		res := sandboxExec(t, s, p, ExecRequest{Args: curl("https://example.com:" + port + "/x")})
		if res.ExitCode != 0 || string(res.Output) != "hello /x" {
			t.Errorf("%s: allowed host: %d %q", p, res.ExitCode, res.Output)
		}
	}
	for _, tc := range []struct {
		args []string
		code int // curl's exit code
		want string
	}{
		// Not on the list, or on it at another port: the proxy's 403.
		{curl("https://other.test:" + port + "/"), 56, "CONNECT tunnel failed, response 403"},
		{curl("https://example.com/"), 56, "CONNECT tunnel failed, response 403"},
		// By address: the proxy's 403 too.
		{curl("https://127.0.0.1:" + port + "/"), 56, "CONNECT tunnel failed, response 403"},
		// Plain http through the proxy: 405, with the reason.
		{curl("http://example.com:" + port + "/"), 0, "agentsh: only HTTPS through CONNECT is allowed, not GET http://example.com:" + port + "/; use an https:// URL\n405"},
		// Around the proxy: nothing to connect to in the sandbox.
		{curl("--noproxy", "*", "https://127.0.0.1:"+port+"/"), 7, "Couldn't connect to server"},
		{curl("--noproxy", "*", plain.URL), 7, "Couldn't connect to server"},
	} {
		res := sandboxExec(t, s, ProfileWorkspace, ExecRequest{Args: append(tc.args, "-w", "%{http_code}")})
		if res.ExitCode != tc.code || !strings.Contains(string(res.Output), tc.want) {
			t.Errorf("%q: exit %d %q; want %d and %q", tc.args, res.ExitCode, res.Output, tc.code, tc.want)
		}
	}
}

// TestBridgeNoAllowHosts: without allowed hosts there is no proxy, no
// bridge and no network.
func TestBridgeNoAllowHosts(t *testing.T) {
	t.Parallel()
	needCurl(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain") }))
	t.Cleanup(plain.Close)
	s, _ := newProxySandbox(t, nil)
	res := sandboxExec(t, s, ProfileWorkspace, ExecRequest{Args: []string{"curl", "-sS", "--max-time", "20", plain.URL}})
	if res.ExitCode == 0 || strings.Contains(string(res.Output), "plain") {
		t.Errorf("curl to a host listener: %d %q; want a failure", res.ExitCode, res.Output)
	}
	res = sandboxExec(t, s, ProfileWorkspace, ExecRequest{Args: bash(`env | grep -i _proxy; echo pid $$`)})
	if string(res.Output) != "pid 2\n" {
		t.Errorf("no proxy: %q; want no proxy variables and bwrap's init as pid 1", res.Output)
	}
	s.mu.RLock()
	started := s.proxy != nil
	s.mu.RUnlock()
	if started {
		t.Error("a proxy was started for a sandbox without allowed hosts")
	}
}

// TestBridgeEnvironment: the command sees the proxy variables, pointing
// at the bridge on the proxy's port, over its own.
func TestBridgeEnvironment(t *testing.T) {
	t.Parallel()
	s, _ := newProxySandbox(t, []string{"example.com"})
	res := sandboxExec(t, s, ProfileWorkspace, ExecRequest{
		Args: bash(`env | grep -i _proxy= | sort; tr '\0' ' ' < /proc/1/cmdline | cut -d' ' -f2`),
		Env:  []string{"HTTPS_PROXY=http://elsewhere:1", "NO_PROXY=*"},
	})
	u := "http://" + s.proxy.Addr()
	want := strings.Join([]string{
		"ALL_PROXY=" + u, "HTTPS_PROXY=" + u, "HTTP_PROXY=" + u, "NO_PROXY=",
		"all_proxy=" + u, "http_proxy=" + u, "https_proxy=" + u, "no_proxy=",
		bridgeArg, "",
	}, "\n")
	if res.ExitCode != 0 || string(res.Output) != want {
		t.Errorf("environment and the sandbox's init: %d\n%s\nwant\n%s", res.ExitCode, res.Output, want)
	}
}

// TestBridgeExitStatus: the command's status, signals, standard input,
// output and error come through the bridge as they would without it.
func TestBridgeExitStatus(t *testing.T) {
	t.Parallel()
	s, _ := newProxySandbox(t, []string{"example.com"})
	for _, tc := range []struct {
		script, stdin string
		code          int
		out           string
	}{
		{`echo out; echo err >&2; exit 7`, "", 7, "out\nerr\n"},
		{`kill -TERM $$`, "", 143, ""},
		{`kill -KILL $$`, "", 137, ""},
		{`cat; echo " read"`, "from stdin", 0, "from stdin read\n"},
		// A session of its own, as bwrap --new-session gives it, below
		// the bridge (the sandbox's init).
		{`test -t 0 || echo "no terminal"; read -r _ _ _ ppid pgrp sid _ < /proc/$$/stat; [ $sid = $$ ] && [ $pgrp = $$ ] && echo "leader, parent $ppid"`, "", 0, "no terminal\nleader, parent 1\n"},
		// A background process left behind does not hold the run.
		{`sleep 100 & echo started`, "", 0, "started\n"},
	} {
		res := sandboxExec(t, s, ProfileWorkspace, ExecRequest{Args: bash(tc.script), Stdin: []byte(tc.stdin)})
		if res.ExitCode != tc.code || string(res.Output) != tc.out {
			t.Errorf("%s: %d %q; want %d %q", tc.script, res.ExitCode, res.Output, tc.code, tc.out)
		}
	}
}

// TestBridgeSignals: a signal sent to the bridge reaches the command; a
// timeout stops the command as without the bridge, SIGKILL after the
// grace period for one that ignores SIGTERM; and nothing survives the run.
func TestBridgeSignals(t *testing.T) {
	t.Parallel()
	s, root := newProxySandbox(t, []string{"example.com"})
	res := sandboxExec(t, s, ProfileWorkspace, ExecRequest{
		Args:    bash(`trap 'echo got USR1; exit 3' USR1; kill -USR1 1; while :; do sleep 0.05; done`),
		Timeout: watchdog / 2,
	})
	if res.ExitCode != 3 || string(res.Output) != "got USR1\n" {
		t.Errorf("USR1 to the bridge: %+v %q; want the command's trap", res, res.Output)
	}

	n := fmt.Sprintf("%06d2", (time.Now().UnixNano()/1000)%1000000)
	tag := "97." + n
	for _, tc := range []struct {
		script string
		code   int
	}{
		{`sleep 97.""` + n + ` & touch ready; sleep 97.""` + n, 143},
		{`trap "" TERM; setsid sleep 97.""` + n + ` & touch ready; while :; do sleep 0.05; done`, 137},
	} {
		res := timeoutWhenReady(t, s.Ops(ProfileWorkspace), ExecRequest{Args: bash(tc.script)}, filepath.Join(root, "ready"))
		if !res.TimedOut || res.ExitCode != tc.code {
			t.Errorf("%s: %+v %q; want a timeout and %d", tc.script, res, res.Output, tc.code)
		}
		if left := sandboxProcs(tag); len(left) > 0 {
			t.Errorf("%s: processes left after the run: %v", tc.script, left)
			for _, p := range left {
				var pid int
				fmt.Sscan(p, &pid)
				killPid(pid)
			}
		}
	}
}

// TestBridgeNeedsInit: a program that did not call Init cannot run a
// command with allowed hosts under Bubblewrap, and says so.
func TestBridgeNeedsInit(t *testing.T) {
	// Not parallel: it changes what Init set for the whole binary.
	s, _ := newProxySandbox(t, []string{"example.com"})
	bridgeReady.Store(false)
	defer bridgeReady.Store(true)
	_, err := s.Exec(context.Background(), ProfileWorkspace, ExecRequest{Args: []string{"true"}})
	if !errors.Is(err, ErrNotInitialized) {
		t.Errorf("without Init: %v; want ErrNotInitialized", err)
	}
}
