package search_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/search/searchtest"
)

// wrapped is a backend of a program's own, registered by name the way a
// program that embeds agentsh would register one. It searches with the
// native backend through a type of its own.
type wrapped struct{ n *search.Native }

func (w wrapped) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	return w.n.Grep(ctx, req, emit)
}

func (w wrapped) Glob(ctx context.Context, req search.GlobRequest, emit func(string) bool) error {
	return w.n.Glob(ctx, req, emit)
}

var registerWrapped = sync.OnceFunc(func() {
	search.RegisterGrep("wrapped", func(root string) (search.Grepper, error) { return wrapped{search.NewNative(root)}, nil })
	search.RegisterGlob("wrapped", func(root string) (search.Globber, error) { return wrapped{search.NewNative(root)}, nil })
})

func TestRegisteredBackendPassesSearchtest(t *testing.T) {
	registerWrapped()
	open := func(t *testing.T, kind, root string) any {
		var b any
		var err error
		if kind == "grep" {
			b, err = search.OpenGrep("wrapped", root)
		} else {
			b, err = search.OpenGlob("wrapped", root)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := b.(wrapped); !ok {
			t.Fatalf("Open%s(wrapped) = %T, want the registered backend", kind, b)
		}
		return b
	}
	t.Run("grep", func(t *testing.T) {
		searchtest.TestGrepper(t, func(root string) search.Grepper { return open(t, "grep", root).(search.Grepper) })
	})
	t.Run("glob", func(t *testing.T) {
		searchtest.TestGlobber(t, func(root string) search.Globber { return open(t, "glob", root).(search.Globber) })
	})
}

func TestBackendNames(t *testing.T) {
	registerWrapped()
	if got := search.GrepBackends(); !slices.Equal(got[:2], []string{"native", "ripgrep"}) || !slices.Contains(got, "wrapped") {
		t.Errorf("GrepBackends() = %v, want native and ripgrep first, then the registered ones", got)
	}
	if got := search.GlobBackends(); !slices.Equal(got[:3], []string{"native", "ripgrep", "fd"}) || !slices.Contains(got, "wrapped") {
		t.Errorf("GlobBackends() = %v, want native, ripgrep and fd first, then the registered ones", got)
	}
	// The lists are copies.
	search.GrepBackends()[0] = "changed"
	if search.GrepBackends()[0] != "native" {
		t.Error("GrepBackends returned the registry's own slice")
	}
	if _, err := search.LookupGrep("fd"); err == nil || !strings.HasPrefix(err.Error(), `unknown grep backend "fd": want native, ripgrep`) {
		t.Errorf("LookupGrep(fd) = %v, want an unknown grep backend error listing the registered ones (fd only globs)", err)
	}
	if _, err := search.OpenGlob("ag", t.TempDir()); err == nil || !strings.Contains(err.Error(), "want native, ripgrep, fd or wrapped") {
		t.Errorf("OpenGlob(ag) = %v, want the registered names", err)
	}
}

// A backend whose program is missing is an error and no backend at all,
// not an interface holding a nil pointer.
func TestOpenWithoutTheProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	g, err := search.OpenGrep("ripgrep", t.TempDir())
	if err == nil || g != nil || !strings.Contains(err.Error(), "apt-get install ripgrep") {
		t.Errorf("OpenGrep(ripgrep) without rg = %v, %v; want nil and what to install", g, err)
	}
	for _, name := range []string{"ripgrep", "fd"} {
		if g, err := search.OpenGlob(name, t.TempDir()); err == nil || g != nil {
			t.Errorf("OpenGlob(%s) without its program = %v, %v; want nil and an error", name, g, err)
		}
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	registerWrapped()
	open := func(string) (search.Grepper, error) { return nil, nil }
	for _, c := range []struct {
		name string
		open search.GrepOpener
		want string
	}{
		{"native", open, `"native" is already registered`},
		{"wrapped", open, "already registered"},
		{"", open, "want a word"},
		{"a b", open, "want a word"},
		{"a,b", open, "want a word"},
		{"nil", nil, "nil opener"},
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.Contains(s, c.want) {
					t.Errorf("RegisterGrep(%q) panicked with %q, want %q", c.name, s, c.want)
				}
			}()
			search.RegisterGrep(c.name, c.open)
		}()
	}
	if slices.Contains(search.GrepBackends(), "nil") {
		t.Error("a refused registration is listed")
	}
}
