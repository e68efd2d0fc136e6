// Package all registers every provider adapter of agentsh: importing it
// (for its side effect) makes openai:, ollama:, anthropic: and replay:
// specs open with provider.Open. Programs that want fewer adapters import
// those instead.
package all

import (
	_ "github.com/agentsh/agentsh/provider/anthropic" // anthropic:MODEL
	_ "github.com/agentsh/agentsh/provider/openai"    // openai:MODEL, ollama:MODEL
	_ "github.com/agentsh/agentsh/provider/replay"    // replay:FILE
)
