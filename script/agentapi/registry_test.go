package agentapi_test

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/provider"
	_ "github.com/agentsh/agentsh/provider/all"
	"github.com/agentsh/agentsh/script/agentapi"
)

// myco is a provider registered by a program of its own, as a company's
// gateway would be: the script reaches it by its prefix like any adapter.
func init() {
	provider.Register("myco", func(model string) (provider.Provider, error) {
		return provider.Func{Label: "myco:" + model, Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
			return provider.Response{Content: "myco " + model + " heard " + req.Messages[len(req.Messages)-1].Content}, nil
		}}, nil
	})
}

func TestRegisteredProviderFromScript(t *testing.T) {
	for _, lang := range []string{"star", "lua"} {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			e.run(lang, `print(provider("myco:m1"))`+"\n"+`print(ask("hi").text)`)
			wantLines(t, e.lines(), "myco:m1", "myco m1 heard hi")
			if got := e.sess.ProviderName(); got != "myco:m1" {
				t.Errorf("ProviderName() = %q, want myco:m1", got)
			}
		})
	}
}
