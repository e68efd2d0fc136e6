package tools_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/search"
)

// upperGrep is a backend of a program's own: native grep whose matching
// lines are reported in upper case, so a test can tell it answered.
type upperGrep struct{ *search.Native }

func (g upperGrep) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	return g.Native.Grep(ctx, req, func(r search.FileResult) bool {
		for i := range r.Lines {
			r.Lines[i].Text = strings.ToUpper(r.Lines[i].Text)
		}
		return emit(r)
	})
}

var registerUpper = sync.OnceFunc(func() {
	search.RegisterGrep("upper", func(root string) (search.Grepper, error) { return upperGrep{search.NewNative(root)}, nil })
})

func TestRegisteredGrepBackendIsSelectable(t *testing.T) {
	registerUpper()
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{"a.txt": "say todo here\n"})
	if err := e.ext.CheckGrepBackend("upper"); err != nil {
		t.Fatalf("CheckGrepBackend(upper): %v", err)
	}
	if e.ext.GrepBackend() != "native" {
		t.Errorf("CheckGrepBackend changed the backend to %s", e.ext.GrepBackend())
	}
	if err := e.ext.SetGrepBackend("upper"); err != nil {
		t.Fatal(err)
	}
	if got := e.ext.GrepBackend(); got != "upper" {
		t.Errorf("GrepBackend() = %q, want upper", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "todo", "output_mode": "content"}); !strings.Contains(got, "SAY TODO HERE") {
		t.Errorf("grep through the registered backend:\n%s\nwant the line in upper case", got)
	}
}

func TestUnknownBackendListsTheRegistered(t *testing.T) {
	registerUpper()
	e := newEnv(t, tools.ExtensionConfig{})
	for _, c := range []struct {
		err  error
		want string
	}{
		{e.ext.CheckGrepBackend("ag"), `unknown grep backend "ag": want native, ripgrep or upper`},
		{e.ext.SetGrepBackend("ag"), `unknown grep backend "ag": want native, ripgrep or upper`},
		{e.ext.CheckGlobBackend("upper"), `unknown glob backend "upper": want native, ripgrep or fd`},
		{e.ext.SetGlobBackend(""), `unknown glob backend "": want native, ripgrep or fd`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if e.ext.GrepBackend() != "native" || e.ext.GlobBackend() != "native" {
		t.Errorf("a refused name changed the backends: %s, %s", e.ext.GrepBackend(), e.ext.GlobBackend())
	}
}
