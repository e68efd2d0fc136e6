package process

import (
	"io/fs"
	"os"
	"path/filepath"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// What a plan allows, as Landlock rules. Landlock only grants: a rule
// gives rights to a file, or to a directory and everything beneath it,
// and nothing can be taken back below. So a directory with something
// below it that must get fewer rights (a protected entry, a secret, the
// home directory) is not granted as a whole but split: it gets READ_DIR
// only, each of its other entries is granted on its own, and the split
// goes on down the path to what is carved out.
//
// This is where the backend differs from Bubblewrap: in a split directory
// (usually the working directory's root, which holds .git) an existing
// file can be read and written, but no entry can be created, removed or
// renamed, as those rights would reach the carved entry too; and an entry
// that someone outside makes there during a run is out of reach. Names
// can be listed anywhere (READ_DIR on / reaches the home directory and
// /tmp), contents cannot.

// Groups of Landlock's file system rights.
const (
	llRead uint64 = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// llFileRights are the rights that mean something for a file that
	// is not a directory; Landlock refuses the others on one.
	llFileRights uint64 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
	llDevice uint64 = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// llMakeDevices are never granted: with the seccomp filter, a second
	// guard against device nodes.
	llMakeDevices uint64 = ll.AccessFSMakeChar | ll.AccessFSMakeBlock
)

// llFSRights are the file system rights Landlock ABI abi (6 or later)
// knows: up to IOCTL_DEV (ABI 5), and RESOLVE_UNIX from ABI 9.
func llFSRights(abi int) uint64 {
	if abi >= 9 {
		return ll.AccessFSResolveUnix<<1 - 1
	}
	return ll.AccessFSIoctlDev<<1 - 1
}

// llSystemCarves are the directories of the system a command cannot read
// (relative to the system's root): other programs' temporary files and
// sockets, and /dev, of which llDevices are granted one by one.
var llSystemCarves = []string{"tmp", "var/tmp", "dev/shm", "run", "dev"}

// llDevices are the devices a command may read and write. Not /dev/tty:
// the command stays in agentsh's session (see groupCookie), where it
// would be the person's terminal.
var llDevices = []string{"dev/null", "dev/zero", "dev/full", "dev/random", "dev/urandom"}

// llRule grants access to path, and for a directory to all beneath it.
type llRule struct {
	path   string
	access uint64
	dir    bool
}

// llCarve takes path out of the grants made above it: of their rights,
// only keep stay.
type llCarve struct {
	path string
	keep uint64
}

// llRules are the rules of pl: read and execute on the system below
// sysRoot ("/"; another directory in tests) except the home directory,
// the temporary directories, /run and /dev; read and write of a few
// devices; the working directory by profile, less its protected entries
// (read only) and secrets (nothing); all rights but making devices on
// private, the run's own temporary directory. full is every right the
// kernel's Landlock knows.
func llRules(pl *plan, private string, full uint64, sysRoot string) []llRule {
	full &^= llMakeDevices
	access := llRead
	if pl.profile == ProfileWorkspace {
		access = full
	}
	var work, sys []llCarve
	carve := func(path string, keep uint64) {
		work = append(work, llCarve{path, keep})
		// A link carves what it leads to, as a bind mount over it would.
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if to, err := filepath.EvalSymlinks(path); err == nil {
				work = append(work, llCarve{to, keep})
				sys = append(sys, llCarve{to, keep})
			}
		}
	}
	for _, p := range pl.readOnly {
		carve(p, llRead)
	}
	for _, h := range pl.hidden {
		carve(h.path, 0)
	}
	sys = append(sys, llCarve{path: pl.root})
	if pl.home != "" {
		sys = append(sys, llCarve{path: pl.home})
		if within(pl.root, pl.home) {
			work = append(work, llCarve{path: pl.home})
		}
	}
	for _, c := range llSystemCarves {
		if p, err := filepath.EvalSymlinks(filepath.Join(sysRoot, c)); err == nil {
			sys = append(sys, llCarve{path: p})
		}
	}

	var b llBuilder
	b.grantPath(sysRoot, llRead, sys)
	for _, d := range llDevices {
		b.grantPath(filepath.Join(sysRoot, d), llDevice, nil)
	}
	b.grantPath(pl.root, access, work)
	b.grantPath(private, full, nil)
	return b.rules
}

type llBuilder struct{ rules []llRule }

// grantPath grants access to path less carves, if path is a file or a
// directory (links are not followed: what they lead to has rules of its
// own).
func (b *llBuilder) grantPath(path string, access uint64, carves []llCarve) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return
	}
	b.grant(path, fi.IsDir(), access, carves)
}

func (b *llBuilder) grant(path string, dir bool, access uint64, carves []llCarve) {
	var below []llCarve
	for _, c := range carves {
		if c.path == path {
			access &= c.keep
		}
	}
	for _, c := range carves {
		if c.path != path && within(path, c.path) && access&^c.keep != 0 {
			below = append(below, c)
		}
	}
	switch {
	case access == 0:
	case !dir:
		b.rules = append(b.rules, llRule{path, access & llFileRights, false})
	case len(below) == 0:
		b.rules = append(b.rules, llRule{path, access, true})
	default:
		if access&ll.AccessFSReadDir != 0 {
			b.rules = append(b.rules, llRule{path, ll.AccessFSReadDir, true})
		}
		entries, _ := os.ReadDir(path) // what cannot be listed is not granted
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink == 0 {
				b.grant(filepath.Join(path, e.Name()), e.IsDir(), access, below)
			}
		}
	}
}
