package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// debianBinDirs is where Debian's postgresql packages put the server
// programs, one directory per major version, none of them on PATH.
const debianBinDirs = "/usr/lib/postgresql/*/bin"

// findBinDir returns the directory holding initdb and postgres: the one
// on PATH if initdb is there, else the highest version under
// debianBinDirs. The programs are taken from one directory so that
// initdb and the server it prepares for are of one version.
func findBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		// initdb on PATH may be a link into its version's directory;
		// resolve it so postgres is found beside the real one.
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		dir := filepath.Dir(p)
		if isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(debianBinDirs)
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, dir := range dirs {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w: no initdb and postgres on PATH or in %s; install the Debian package postgresql (.ci/run installs it)", ErrUnavailable, debianBinDirs)
}

// majorOf is the version number in /usr/lib/postgresql/VERSION/bin, or
// -1 when it is not a number.
func majorOf(binDir string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(filepath.Base(filepath.Dir(binDir))), 64)
	if err != nil {
		return -1
	}
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
