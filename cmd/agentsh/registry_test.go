package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/tools/search"
)

// registerMyco registers a provider of the test's own, as a program that
// embeds agentsh registers its company's gateway. It is registered in this
// process only, so the golden scripts (run by child processes) list the
// adapters of the real CLI.
var registerMyco = sync.OnceFunc(func() {
	provider.Register("myco", func(model string) (provider.Provider, error) {
		return provider.Func{Label: "myco:" + model, Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
			return provider.Response{Content: "myco " + model + " heard " + req.Messages[len(req.Messages)-1].Content}, nil
		}}, nil
	})
})

func TestModelFlagReachesRegisteredProvider(t *testing.T) {
	registerMyco()
	var out, errOut bytes.Buffer
	code := cli([]string{"--no-builtins", "--model", "myco:x", "-c", `ask("hi")`}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String()+errOut.String(), "myco x heard hi") {
		t.Errorf("stdout %q, stderr %q: want the reply of myco:x", out.String(), errOut.String())
	}

	out.Reset()
	errOut.Reset()
	if code := cli([]string{"--no-builtins", "--model", "nope:x", "-c", "1"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); code != 2 {
		t.Errorf("unknown provider: exit %d, want 2 (usage)", code)
	}
	if want := `unknown provider "nope"; want one of anthropic, myco, ollama, openai, replay`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}

// registerShout registers a grep backend of the test's own (native grep
// that shouts its lines), in this process only, as registerMyco does.
var registerShout = sync.OnceFunc(func() {
	search.RegisterGrep("shout", func(root string) (search.Grepper, error) { return shout{search.NewNative(root)}, nil })
})

type shout struct{ *search.Native }

func (s shout) Grep(ctx context.Context, req search.GrepRequest, emit func(search.FileResult) bool) error {
	return s.Native.Grep(ctx, req, func(r search.FileResult) bool {
		for i := range r.Lines {
			r.Lines[i].Text = strings.ToUpper(r.Lines[i].Text)
		}
		return emit(r)
	})
}

func TestBackendFlagAndConfigReachRegisteredBackend(t *testing.T) {
	registerShout()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a todo here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run("--workdir", dir, "--grep-backend", "shout", "call", "grep", `{"pattern": "todo", "output_mode": "content"}`)
	if code != 0 || !strings.Contains(out, "A TODO HERE") {
		t.Errorf("--grep-backend shout: exit %d, stdout %q, stderr %q; want the registered backend's answer", code, out, errOut)
	}
	code, out, errOut = run("--workdir", dir, "-c", `config(grep_backend = "shout")`+"\n"+`print(config()["grep_backend"])`)
	if code != 0 || strings.TrimSpace(out) != "shout" {
		t.Errorf("config(grep_backend = \"shout\"): exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	want := `unknown grep backend "ag": want native, ripgrep or shout`
	if code, _, errOut := run("--grep-backend", "ag", "tools"); code != 2 || !strings.Contains(errOut, "--grep-backend: "+want) {
		t.Errorf("--grep-backend ag: exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if code, _, errOut := run("--workdir", dir, "-c", `config(grep_backend = "ag")`); code != 1 || !strings.Contains(errOut, "config: grep_backend: "+want) {
		t.Errorf("config(grep_backend = \"ag\"): exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, "--grep-backend B    native, ripgrep or shout (default native)") {
		t.Errorf("help: exit %d; want the registered grep backends listed, got\n%s", code, out)
	}
}
