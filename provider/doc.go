// Package provider is the vocabulary the agent speaks to models: a
// conversation of Messages, the tools the model may call (ToolDef), a
// Request and the model's Response, and the Provider interface every
// adapter implements. Adapters live in sub-packages: openai (Chat
// Completions, also Ollama, vLLM, llama.cpp and LM Studio), anthropic
// (Messages API) and replay (answers from a recording). Func adapts a Go
// function, which is how scripts supply a model.
//
// Adapters register by spec prefix (Register, in their init) and Open
// finds them: openai:MODEL, ollama:MODEL, anthropic:MODEL, replay:FILE,
// or a program's own. A program reaches the adapters it imports; the CLI
// imports provider/all. An adapter's errors carry their own Hint (its
// environment variables, the --model spec that reaches it), so this
// package names no vendor.
//
// Messages are plain data with JSON tags, so a conversation can be
// recorded, replayed and compared byte for byte.
//
// The HTTP adapters bound every response by Limits (idle time, total time,
// size; a broken limit is ErrTimeout or ErrTooLarge) and implement
// Limited, so the limits of a provider opened from a spec can be changed.
// A Response cut off by the token limit (CutOff) holds the tool call the
// model was writing in Incomplete, never in ToolCalls; a call whose
// arguments are not JSON keeps them in ToolCall.InvalidArgs.
package provider
