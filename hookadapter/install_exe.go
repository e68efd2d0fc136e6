package hookadapter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckExecutable refuses exe as the agentsh that hook entries run when
// it lives somewhere that is cleaned up: the Go build cache ($GOCACHE, by
// default the go-build directory of the user's cache, where go run keeps
// the programs it builds), a go-build* directory (go run's and go test's
// temp builds), or a temp directory ($TMPDIR, /tmp, /var/tmp). Once it is
// gone, every entry fails; the entries Install writes then block every
// call, and entries written by hand let every call through.
func CheckExecutable(exe string) error {
	var caches []string
	if c := os.Getenv("GOCACHE"); c != "" && c != "off" {
		caches = append(caches, c)
	}
	if c, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(c, "go-build"))
	}
	for _, c := range caches {
		if within(exe, c) {
			return temporaryExe(exe, "the Go build cache")
		}
	}
	for _, elem := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(elem, "go-build") {
			return temporaryExe(exe, "a Go build directory")
		}
	}
	for _, t := range []string{os.TempDir(), os.Getenv("GOTMPDIR"), "/tmp", "/var/tmp"} {
		if t != "" && within(exe, t) {
			return temporaryExe(exe, "a temp directory")
		}
	}
	return nil
}

// ErrTemporaryExe is the error of CheckExecutable for an executable in a
// place that is cleaned up.
var ErrTemporaryExe = errors.New("is cleaned up")

func temporaryExe(exe, where string) error {
	return fmt.Errorf("the agentsh executable %s is in %s, which %w, and then the hook entries would block every call; "+
		"install agentsh (go install ./cmd/agentsh puts it in $(go env GOPATH)/bin) and run that binary's hook install, "+
		"or name a lasting one", exe, where, ErrTemporaryExe)
}

// within reports whether path is dir or below it, also through symbolic
// links on either side (macOS's /tmp is /private/tmp).
func within(path, dir string) bool {
	for _, p := range resolved(path) {
		for _, d := range resolved(dir) {
			if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// resolved is path made absolute and clean, and with the symbolic links
// of it (or of its directory) resolved when that works.
func resolved(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	out := []string{abs}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if d, derr := filepath.EvalSymlinks(filepath.Dir(abs)); derr == nil {
			r, err = filepath.Join(d, filepath.Base(abs)), nil
		}
	}
	if err == nil && r != abs {
		out = append(out, r)
	}
	return out
}
