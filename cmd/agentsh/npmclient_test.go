package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// npmClient describes a real client or server from npm that some tests run
// against. .ci/run installs each, pinned, and sets env to its directory;
// without it the tests skip, saying how to install it.
type npmClient struct {
	env  string // AGENTSH_..._DIR
	pkg  string // the npm package
	node bool   // needs Node.js to run
	// bins are the executables to try, relative to the directory (globs
	// allowed), in order.
	bins []string
	// version, when set, is what `BIN --version` must print (a part of)
	// for BIN to count as working.
	version string
}

// found keeps what find decided for each client directory, so that the
// tests of the package ask each client for its version once (Gemini CLI
// takes seconds to start).
var foundClients sync.Map // env + "=" + dir → foundClient

// foundClient is what find decided: the binary, or why the tests skip.
type foundClient struct{ bin, skip string }

// find returns the first of c.bins that works, or skips the test.
func (c npmClient) find(t testing.TB) string {
	t.Helper()
	hint := fmt.Sprintf("install it with `npm install --prefix DIR %s` and set %s=DIR", c.pkg, c.env)
	dir := os.Getenv(c.env)
	if dir == "" {
		t.Skip(c.env + " is not set: " + hint)
	}
	if _, err := exec.LookPath("node"); c.node && err != nil {
		t.Skipf("node is not on PATH; %s runs on Node.js", c.pkg)
	}
	key := c.env + "=" + dir
	v, ok := foundClients.Load(key)
	if !ok {
		bin, skip := c.look(dir)
		if skip != "" {
			skip += ": " + hint
		}
		v, _ = foundClients.LoadOrStore(key, foundClient{bin, skip})
	}
	if f := v.(foundClient); f.skip != "" {
		t.Skip(f.skip)
	}
	return v.(foundClient).bin
}

// look returns the first of c.bins in dir that works, or why none does.
func (c npmClient) look(dir string) (bin, skip string) {
	var tried []string
	for _, pattern := range c.bins {
		found, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, bin := range found {
			if c.version == "" {
				if _, err := os.Stat(bin); err == nil {
					return bin, ""
				}
				continue
			}
			out, err := exec.Command(bin, "--version").Output()
			if err == nil && strings.Contains(string(out), c.version) {
				return bin, ""
			}
			tried = append(tried, fmt.Sprintf("%s --version: %v %q", bin, err, out))
		}
	}
	return "", fmt.Sprintf("%s=%s but no working %s is there (%s)", c.env, dir, c.pkg, strings.Join(tried, "; "))
}
