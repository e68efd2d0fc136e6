package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/provider"
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
	code := agentsh([]string{"--no-builtins", "--model", "myco:x", "-c", `ask("hi")`}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String()+errOut.String(), "myco x heard hi") {
		t.Errorf("stdout %q, stderr %q: want the reply of myco:x", out.String(), errOut.String())
	}

	out.Reset()
	errOut.Reset()
	if code := agentsh([]string{"--no-builtins", "--model", "nope:x", "-c", "1"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); code != 2 {
		t.Errorf("unknown provider: exit %d, want 2 (usage)", code)
	}
	if want := `unknown provider "nope"; want one of anthropic, myco, ollama, openai, replay`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}
