// Package openai adapts the OpenAI Chat Completions API
// (POST {BaseURL}/chat/completions) to provider.Provider.
//
// The same wire format is spoken by many local servers, so one adapter
// serves them all:
//
//   - OpenAI itself: New(Config{Model: "gpt-4o"}), with the key from
//     OPENAI_API_KEY and the URL from OPENAI_BASE_URL when set.
//   - Ollama: Ollama("llama3.2"), at http://localhost:11434/v1 or the
//     host:port in OLLAMA_HOST.
//   - vLLM (BaseURL "http://localhost:8000/v1"), the llama.cpp server
//     ("http://localhost:8080/v1") and LM Studio ("http://localhost:1234/v1"):
//     New(Config{Model: ..., BaseURL: ...}). A server at any URL other than
//     OpenAI's needs no key; when one is given it is sent as a bearer token.
//
// Importing the package registers the spec prefixes openai: (New) and
// ollama: (Ollama) with provider.Register, for --model and provider().
//
// # Requests
//
// The system prompt goes first as a system message. Assistant tool calls
// carry their arguments as a JSON string, tool results become "tool"
// messages (a failed result's content is its error message, as the
// provider.Message says), and the tools are offered as "function" tools
// whose parameters default to an empty object schema. Images of tool
// results cannot travel in a tool message: they follow the tool messages
// of that turn in one user message, each tool's images introduced by a
// text part "images from tool NAME (call ID)". Images go as the type
// their bytes show (JPEG, PNG, GIF or WebP, the types the API accepts);
// any other image, such as an SVG, is replaced by a text part saying what
// was left out, so that one block cannot make the API refuse the request.
// Blocks that are not images are not sent. Request.MaxTokens is sent as "max_tokens", the field every
// compatible server understands; OpenAI's reasoning models, which accept
// only "max_completion_tokens", reject it, so leave MaxTokens zero for
// them. Request.Model, when set, overrides Config.Model. Prompt-cache marks
// are ignored: OpenAI caches prompts by itself.
//
// # Responses
//
// Every tool call of an answer is returned, in order; arguments that are
// empty become {}, and arguments that are not JSON are kept in
// ToolCall.InvalidArgs (the agent answers such a call with an
// invalid_arguments result the model can correct). StopReason is the
// API's finish_reason ("stop", "length", "tool_calls", "content_filter").
// An answer cut off by the token limit ("length") was cut while the model
// wrote its last tool call: that call goes to Response.Incomplete, not to
// ToolCalls, so it is never run; the text and the other calls are kept. Usage.InputTokens counts the
// prompt tokens not read from the cache and Usage.CacheReadTokens those
// that were, so that their sum is the whole prompt.
//
// When Complete is given a stream function the request asks for a
// server-sent event stream (with usage in its final chunk) and text is
// passed on as it arrives; tool calls are assembled from their pieces.
//
// # Errors
//
// Failures are *provider.Error values with Provider "openai" (or "ollama"),
// the HTTP status and the server's message: 401 and 403 are
// provider.ErrAuth; 404 and model_not_found are provider.ErrUnknownModel;
// a 400 about the context length is provider.ErrContextOverflow; 429 after
// the retries is provider.ErrRateLimited; 5xx after the retries, and a
// server that cannot be reached, are provider.ErrServer; other 4xx are
// provider.ErrBadRequest; an answer that cannot be understood is
// provider.ErrProtocol. When the context ends, Complete returns the
// context's error. An auth error's Hint names OPENAI_API_KEY (for Ollama:
// that it sends no key), an unknown Ollama model's the ollama pull that
// fetches it.
//
// Every response is bounded by Config.Limits (provider.Limits): a server
// that sends nothing for IdleTimeout (10 minutes by default, before the
// headers or between two reads) or whose response takes longer than
// MaxDuration (1 hour) fails with provider.ErrTimeout, and a response
// larger than MaxBytes (64 MiB, a whole stream included) with
// provider.ErrTooLarge. Neither is retried.
//
// A Provider is safe for concurrent use.
package openai
