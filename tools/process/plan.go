package process

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsh/agentsh/workpath"
)

// plan is one confined run as both backends see it: what the command may
// read and write, worked out from a fresh look at the working directory.
// The backends differ in how they enforce it, not in what it says.
type plan struct {
	profile Profile
	prepared
	// readOnly are the protected entries under root (absolute, as found:
	// .git directories and files, agent folders), which stay read-only.
	readOnly []string
	// hidden are the secret files and directories under root, whose
	// contents the command cannot read.
	hidden []hiddenPath
	// home is the person's home directory (absolute, links resolved),
	// hidden from the command; "" when there is none to hide.
	home string
	// proxy, when set, is the loopback proxy the command reaches the
	// allowed hosts through; nil means no network at all.
	proxy *Proxy

	protected []string // the protected names
	// found are the protected entries present at the start, which
	// quarantine leaves alone wherever they are at the end (the command
	// may have moved the directory that holds one).
	found []fs.FileInfo
}

// hiddenPath is a secret file or directory.
type hiddenPath struct {
	path string // absolute
	dir  bool
}

// newPlan looks at root for req under profile p.
func newPlan(root string, p Profile, cfg SandboxConfig, req ExecRequest) (*plan, error) {
	prep, err := prepare(root, req, cfg.BaseEnv, nil)
	if err != nil {
		return nil, err
	}
	pl := &plan{profile: p, prepared: prep, protected: cfg.Protected}
	if pl.protected == nil {
		pl.protected = DefaultProtected
	}
	secrets := cfg.Secrets
	if secrets == nil {
		secrets = DefaultSecrets
	}
	m, err := workpath.NewMatcher(secrets)
	if err != nil {
		return nil, fmt.Errorf("process: secret files: %w", err)
	}
	err = pl.walk(func(rel, abs string, d fs.DirEntry) error {
		if slices.Contains(pl.protected, d.Name()) {
			pl.readOnly = append(pl.readOnly, abs)
			if fi, err := d.Info(); err == nil {
				pl.found = append(pl.found, fi)
			}
			return fs.SkipDir // a file's SkipDir skips nothing more
		}
		if m.MatchEntry(rel) {
			pl.hidden = append(pl.hidden, hiddenPath{abs, d.IsDir()})
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		if real, err := filepath.EvalSymlinks(h); err == nil && real != "/" && real != pl.root {
			pl.home = real
		}
	}
	return pl, nil
}

// walk calls fn for every entry below the root, with its path relative to
// the root (slash-separated) and absolute. Entries that cannot be read are
// skipped: a command cannot read them either.
func (pl *plan) walk(fn func(rel, abs string, d fs.DirEntry) error) error {
	err := filepath.WalkDir(pl.root, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			if abs == pl.root {
				return err
			}
			return nil
		}
		if abs == pl.root {
			return nil
		}
		rel, rerr := filepath.Rel(pl.root, abs)
		if rerr != nil {
			return rerr
		}
		err = fn(filepath.ToSlash(rel), abs, d)
		if err == fs.SkipDir && !d.IsDir() {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("process: look at the working directory %s: %w", pl.root, err)
	}
	return nil
}

// quarantine renames the protected entries that appeared during a
// workspace run to NAME.sandboxed-N, and returns a line for the output
// saying so ("" when there were none). A .git made inside the sandbox
// would be the person's the moment the run ends: its hooks and
// configuration would run programs, unconfined, at their next git
// command. An entry is new unless it is one found at the start
// (os.SameFile), wherever that is now: a new one can have the path of
// one found, whose directory the command moved aside. (One found cannot
// have been removed, its inode freed and reused: it is read-only, and so
// is all it holds.)
func (pl *plan) quarantine() string {
	if pl.profile != ProfileWorkspace {
		return ""
	}
	var made []string
	_ = pl.walk(func(rel, abs string, d fs.DirEntry) error {
		if !slices.Contains(pl.protected, d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone already
		}
		if !slices.ContainsFunc(pl.found, func(was fs.FileInfo) bool { return os.SameFile(was, fi) }) {
			made = append(made, rel)
		}
		return fs.SkipDir
	})
	if len(made) == 0 {
		return ""
	}
	var b strings.Builder
	for _, rel := range made {
		abs := filepath.Join(pl.root, filepath.FromSlash(rel))
		for n := 1; n < 1000; n++ {
			to := fmt.Sprintf("%s.sandboxed-%d", abs, n)
			if _, err := os.Lstat(to); err == nil {
				continue
			}
			if err := os.Rename(abs, to); err != nil {
				fmt.Fprintf(&b, "\nagentsh: the command made %s, which the sandbox keeps read-only, and it could not be set aside: %v; remove it before you run git there\n", rel, err)
			} else {
				fmt.Fprintf(&b, "\nagentsh: the command made %s, which the sandbox keeps read-only; it was renamed to %s (make it yourself, outside the sandbox, if you want it)\n", rel, filepath.ToSlash(strings.TrimPrefix(to, pl.root+"/")))
			}
			break
		}
	}
	return b.String()
}
