package provider_test

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/provider"
)

// An adapter registers by the spec prefix it answers to, in its package's
// init; then provider.Open("echo:MODEL") finds it, as --model echo:MODEL
// and provider("echo:MODEL") in scripts do.
func init() {
	provider.Register("echo", func(model string) (provider.Provider, error) {
		return provider.Func{Label: "echo:" + model, Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
			return provider.Response{Content: req.Messages[len(req.Messages)-1].Content}, nil
		}}, nil
	})
}

func ExampleOpen() {
	p, err := provider.Open("echo:parrot-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := p.Complete(context.Background(), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Polly wants a cracker"}},
	}, nil)
	fmt.Println(p.Name(), "says", resp.Content, err)
	// Output:
	// echo:parrot-1 says Polly wants a cracker <nil>
}
