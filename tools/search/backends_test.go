package search_test

import (
	"os/exec"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/search/searchtest"
)

func TestNativeGrepper(t *testing.T) {
	searchtest.TestGrepper(t, func(root string) search.Grepper { return search.NewNative(root) })
}

func TestNativeGlobber(t *testing.T) {
	searchtest.TestGlobber(t, func(root string) search.Globber { return search.NewNative(root) })
}

func newRipgrep(t *testing.T, root string) *search.Ripgrep {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep (rg) not found; apt-get install ripgrep")
	}
	rg, err := search.NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	return rg
}

func newFd(t *testing.T, root string) *search.Fd {
	t.Helper()
	fd, err := search.NewFd(root)
	if err != nil {
		t.Skip("fd not found (looked for fd and fdfind); apt-get install fd-find")
	}
	return fd
}

func TestRipgrepGrepper(t *testing.T) {
	newRipgrep(t, t.TempDir())
	searchtest.TestGrepper(t, func(root string) search.Grepper { return newRipgrep(t, root) })
}

func TestRipgrepGlobber(t *testing.T) {
	newRipgrep(t, t.TempDir())
	searchtest.TestGlobber(t, func(root string) search.Globber { return newRipgrep(t, root) })
}

func TestFdGlobber(t *testing.T) {
	newFd(t, t.TempDir())
	searchtest.TestGlobber(t, func(root string) search.Globber { return newFd(t, root) })
}
