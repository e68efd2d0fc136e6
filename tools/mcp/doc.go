// Package mcp makes the tools of Model Context Protocol servers agentsh
// tools. It connects to a server (a command over stdio, a streamable HTTP
// endpoint, or any go-sdk transport), lists its tools and registers each
// one as mcp__SERVER__TOOL, so that every call goes through the executor
// pipeline: hooks, middleware, argument validation and execution modes
// apply to remote tools as to any other.
//
//	c := mcp.NewClient(reg)
//	names, err := c.Add(ctx, mcp.ServerConfig{
//		Name:    "everything",
//		Command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
//	})
//	defer c.Close()
//
// or, as an extension:
//
//	err := exec.Install(ctx, mcp.NewExtension(mcp.ServerConfig{Name: "docs", URL: "https://example.com/mcp"}))
//
// # Names
//
// A remote tool named TOOL on server NAME registers as mcp__NAME__TOOL,
// with every character of TOOL outside [A-Za-z0-9_-] replaced by "_"
// (model providers reject dots). Names longer than 64 characters are cut
// and end in a short hash of the remote name (see ToolName). Two remote
// tools of one server that would share a name are an error naming both.
//
// # Definitions
//
// The description is the tool's description (its title if it has none);
// the parameters are its input schema. A tool annotated readOnlyHint is
// ConcurrencySafe; otherwise its safety is undeclared (nil), so parallel
// mode runs it in the pool and mixed mode alone. idempotentHint makes it
// Idempotent, so the Retry middleware may run it again. Annotations are
// the server's claims: hooks, not hints, are where policy belongs.
//
// # Results
//
// The text parts of a result, joined by newlines, are the output. Images
// and audio become core.Block values (type "image" or "audio") of a
// core.BlockOutput; embedded resources are text when textual and blocks
// otherwise; structured content, encoded as JSON, stands in for the text
// when there is none. A result marked isError fails the call (kind
// "failed") with its text as the message.
//
// # Connections
//
// Calls honour their context: cancelling it cancels the request on the
// server. Calls to one server may run in parallel over its one session.
// When the connection is lost (the command crashed or exited, the
// endpoint went away) the failing call returns a *ConnectionLostError,
// and the next call connects again, starting the command anew. The tool
// list is read once, when the server is added; a reconnection does not
// change the registered tools.
package mcp
