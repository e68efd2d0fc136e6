package agent

import (
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/anthropic"
	"github.com/agentsh/agentsh/provider/openai"
	"github.com/agentsh/agentsh/provider/replay"
)

// OpenProvider returns the provider a spec names:
//
//	openai:MODEL       Chat Completions (OPENAI_API_KEY, OPENAI_BASE_URL)
//	anthropic:MODEL    Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
//	ollama:MODEL       a local Ollama (OLLAMA_HOST)
//	replay:FILE        answers from a recording made with --record
//
// The scripted model has no spec: scripts set it with model(fn).
func OpenProvider(spec string) (provider.Provider, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("model %q: want PROVIDER:MODEL, such as openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:llama3.2 or replay:run.jsonl", spec)
	}
	switch kind {
	case "openai":
		return openai.New(openai.Config{Model: arg})
	case "anthropic":
		return anthropic.New(anthropic.Config{Model: arg})
	case "ollama":
		return openai.Ollama(arg)
	case "replay":
		return replay.Open(arg)
	}
	return nil, fmt.Errorf("model %q: unknown provider %q; the providers are openai, anthropic, ollama and replay", spec, kind)
}
