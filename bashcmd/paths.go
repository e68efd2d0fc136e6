package bashcmd

import (
	"path"
	"strings"
)

// source is what reading a file named in a command line reads.
type source int

const (
	fromFile   source = iota // an ordinary file (not checked)
	fromStdin                // standard input
	fromDevice               // another descriptor, a device or a /proc file
)

// scriptSource tells, from its name alone, what a shell reading the file
// p reads. /dev and /proc are full of links to descriptors (/dev/stdin,
// /dev/fd, /proc/self/fd, /proc/self/root, ...), so a name is cleaned
// lexically, the links to the root are followed, and what is left is
// standard input only in its plain spellings; any other name in /dev or
// /proc, one that climbs out of the working directory towards them, or
// one that goes through .. inside them (where .. follows the links, not
// the name) is a device. Links made by earlier commands are not seen.
func scriptSource(p string) source {
	if p == "" {
		return fromFile
	}
	parts := strings.Split(p, "/")
	climbs, special := false, false
	for _, c := range parts {
		switch c {
		case "..":
			climbs = true
		case "dev", "proc":
			special = true
		}
	}
	if climbs && special {
		return fromDevice
	}
	clean := path.Clean(p)
	if !path.IsAbs(clean) {
		// A relative name may lead anywhere below / once it climbs out,
		// and dev/stdin is /dev/stdin when the directory is /.
		for clean == ".." || strings.HasPrefix(clean, "../") {
			clean = strings.TrimPrefix(strings.TrimPrefix(clean, ".."), "/")
		}
		clean = path.Clean("/" + clean)
	}
	for {
		rest, ok := procRoot(clean)
		if !ok {
			break
		}
		clean = rest
	}
	switch {
	case clean == "/dev/stdin" || clean == "/dev/fd/0":
		return fromStdin
	case strings.HasPrefix(clean, "/proc/"):
		if pid, rest, ok := strings.Cut(strings.TrimPrefix(clean, "/proc/"), "/"); ok && (pid == "self" || pid == "thread-self") && rest == "fd/0" {
			return fromStdin
		}
		return fromDevice
	case clean == "/dev" || clean == "/proc" || strings.HasPrefix(clean, "/dev/"):
		return fromDevice
	}
	return fromFile
}

// procRoot strips /proc/PID/root (a link to the root directory of a
// process) from the front of p.
func procRoot(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", false
	}
	pid, rest, ok := strings.Cut(rest, "/")
	if !ok || !(pid == "self" || pid == "thread-self" || isDigits(pid)) {
		return "", false
	}
	if rest == "root" {
		return "/", true
	}
	if after, ok := strings.CutPrefix(rest, "root/"); ok {
		return path.Clean("/" + after), true
	}
	return "", false
}

// dirs are the facts about the working directory that Check gathers: a
// relative file name means a file in /dev or /proc after cd /dev (bash
// stdin), so a command line that may change to such a directory may not
// run files by relative names.
type dirs struct {
	unknown  string      // the first change of directory the policy cannot follow
	path     string      // the first change of PATH
	relative []scriptRun // the files run by relative names
}

// scriptRun is a file a command runs.
type scriptRun struct{ who, file string }

// chdir notes a directory the command line changes to (ok false: not
// literal).
func (d *dirs) chdir(target string, ok bool, src string) {
	if d.unknown != "" {
		return
	}
	clean := path.Clean(target)
	first, _, _ := strings.Cut(strings.TrimPrefix(clean, "/"), "/")
	if !ok || clean == "/" || first == "dev" || first == "proc" || first == ".." || strings.Contains(clean, "/..") {
		d.unknown = src
	}
}

func (d *dirs) verdict(a *analyser) {
	for _, r := range d.relative {
		switch {
		case d.unknown != "":
			a.reason(nil, false, "cannot check %s %s: the command line changes directory (%s), and a relative file name may then be a device such as /dev/stdin; use an absolute path", r.who, r.file, d.unknown)
		case d.path != "" && !strings.Contains(r.file, "/"):
			a.reason(nil, false, "cannot check %s %s: the command line changes PATH (%s), where bash and source look for %s, which may then be a device such as /dev/stdin; use ./%s or an absolute path", r.who, r.file, d.path, r.file, r.file)
		}
	}
}

// changeDir is the rule of cd and pushd. An option of theirs changes
// nothing that matters here, so a word that is not literal is taken as a
// directory that cannot be followed.
func changeDir(s *scope, base string, rest []arg, _ *stdin) ([]arg, error) {
	options := true
	for _, a := range rest {
		switch {
		case options && a.lit && a.val == "--":
			options = false
		case options && a.lit && len(a.val) > 1 && a.val[0] == '-' && !isDigits(a.val[1:]):
		case a.lit && (a.val == "-" || len(a.val) > 1 && (a.val[0] == '+' || a.val[0] == '-') && isDigits(a.val[1:])):
			// the previous directory, or a turn of pushd's stack
		default:
			s.dirs.chdir(a.val, a.lit, base+" "+a.source())
		}
	}
	return nil, nil
}
