package pgtest

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// unprivileged are the users a root process runs the server as, first
// found first: the server refuses to run as root, Debian's package
// creates postgres, and nobody is on nearly every system.
var unprivileged = []string{"postgres", "nobody"}

// runAs is who the cluster's programs run as: nil for this process's own
// user, else a user switched to with setuid.
type runAs struct {
	name     string
	uid, gid int
}

// pickUser returns nil when this process is not root (the programs run
// as its user) and an unprivileged user when it is.
func pickUser() (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range unprivileged {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &runAs{name: name, uid: uid, gid: gid}, nil
	}
	return nil, fmt.Errorf("%w: running as root, and postgres refuses to; no unprivileged user (%v) to run it as: install the Debian package postgresql, which creates the user postgres, or run the tests as another user", ErrUnavailable, unprivileged)
}

// credential is what exec.Cmd needs to start a program as u.
func (u *runAs) credential() *syscall.Credential {
	if u == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
}

// own gives path to u; with no u (not root) the path is ours already.
func (u *runAs) own(path string) error {
	if u == nil {
		return nil
	}
	return os.Chown(path, u.uid, u.gid)
}

// canReach reports an error naming the first directory on the way to dir
// (dir included) that u may not search, so that a cluster under a
// private directory fails with a clear message rather than initdb's.
func (u *runAs) canReach(dir string) error {
	if u == nil {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		perm := fi.Mode().Perm()
		searchable := perm&0o001 != 0 ||
			ok && int(st.Uid) == u.uid && perm&0o100 != 0 ||
			ok && int(st.Gid) == u.gid && perm&0o010 != 0
		if !searchable {
			return fmt.Errorf("user %s, who runs the server, cannot reach %s: %s is mode %v; put the cluster under %s", u.name, dir, d, perm, os.TempDir())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
