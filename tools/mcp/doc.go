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
// the parameters are its input schema. A server's annotations
// (readOnlyHint, idempotentHint, destructiveHint, ...) are its claims:
// they are kept and shown (Client.Definition, Definition.Hints) and set
// nothing. A tool is read-only only when the person declares it so in
// ServerConfig.ReadOnly; then it is also ConcurrencySafe and Idempotent.
// Otherwise it is not read-only (a model's call asks unless a policy
// decides), its safety is undeclared (nil: parallel mode runs it in the
// pool, mixed mode alone) and the Retry middleware does not run it again.
//
// # Pins
//
// A Client with pins (WithPins) checks every listing against a pins file
// (see Pins): a tool seen for the first time is pinned with its whole
// definition (Definition: server, remote name, title, description, input
// schema, annotations); a tool whose definition changed is held back — not
// registered, so no model is shown its new text and nothing can call it —
// until a person reviews the change (Pins.List, Diff; agentsh mcp pins)
// and accepts it (Pins.Accept). Client.Hook refuses calls of a held tool
// with the reason, and WithWarn tells the person.
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
// and the next call connects again, starting the command anew.
//
// # Changing tool lists
//
// A Client follows each server's tool list: when the server sends
// notifications/tools/list_changed, or a lost connection is made again,
// it lists the tools again and the registry follows — new tools are
// registered (pinned at first sight), vanished ones removed, changed ones
// held back, a tool renamed onto a name another tool holds left out. A
// call already running keeps the tool it resolved. However often a server
// says its list changed, one goroutine per server lists it, one listing
// at a time. An Extension lists once and follows nothing.
package mcp
