// Package serve offers an executor's registry as a Model Context Protocol
// server, so that other agents call agentsh's tools — built-ins, scripted
// tools and the tools of upstream MCP servers — through its pipeline.
//
//	srv := serve.New(exec, serve.Options{})
//	defer srv.Close()
//	err := srv.Run(ctx, &serve.StdioTransport{Reader: os.Stdin, Writer: os.Stdout})
//
// or over streamable HTTP with serve.HTTPServer(srv.Handler(token)).
//
// # Transports
//
// StdioTransport answers a line it cannot read (longer than
// MaxMessageBytes, not JSON, not JSON-RPC) with an error and reads on,
// where the sdk's ends the session. HTTPServer bounds how long a client
// may take to send a request and to read each write of the response,
// without bounding a stream the client reads.
//
// # Tools
//
// tools/list shows every registered tool that Options.Hide does not hide,
// with its description, its parameters as inputSchema and annotations
// from its declarations (see Annotations). The list follows the registry:
// a tool registered or removed later is added or removed, and connected
// clients get notifications/tools/list_changed.
//
// # Calls
//
// Every tools/call is exec.Invoke with core.OriginMCP, so a policy's
// hooks, middleware and the model's defaults apply: a tool that is not
// read-only asks unless a policy decides. The server's Approver (install
// it with exec.SetApprover) turns an ask into an elicitation when the
// client declared that capability — accept runs the call, decline or
// cancel refuses it — and asks Options.Fallback otherwise. A call's
// context ends when the client cancels the request or disconnects.
//
// Results: the model-facing text as text content, image and audio blocks
// as image and audio content, and a failed call as an isError result
// reading "error (KIND): message".
//
// # Upstream tools
//
// The tools of upstream MCP servers are registered by an mcp.Client (see
// package tools/mcp), which pins their definitions and follows their
// lists: a changed definition is held back — not in the registry, so
// neither listed nor callable here. Their annotations are served as
// agentsh's own (see Annotations): readOnlyHint only when the person
// declared the tool read-only, never because the upstream said so.
//
// # Concurrency
//
// A Server serves any number of sessions at once; its methods are safe
// for concurrent use.
package serve
