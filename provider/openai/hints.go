package openai

import "github.com/agentsh/agentsh/provider"

// hint is what a user of this adapter can do about an error of the kind:
// the environment variables it reads and the --model spec that reaches
// it. The kinds it says nothing special about get provider's general
// advice.
func hint(kind string, model string, k provider.Kind) string {
	switch {
	case kind == "openai" && k == provider.ErrAuth:
		return "set OPENAI_API_KEY, or OPENAI_BASE_URL for a server that needs no key"
	case kind == "ollama" && k == provider.ErrAuth:
		return "ollama:MODEL sends no key; for a server that wants one, use the model openai:MODEL with OPENAI_BASE_URL and OPENAI_API_KEY"
	case kind == "ollama" && k == provider.ErrUnknownModel && model != "":
		return "fetch it with `ollama pull " + model + "`, or check the name in ollama:MODEL"
	}
	return ""
}
