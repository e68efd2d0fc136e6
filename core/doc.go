// Package core is the vocabulary every other agentsh package speaks: tools,
// calls, results, errors, hooks, middleware, the tool registry, extensions
// and artifact stores.
//
// core imports no interpreter and runs nothing by itself; the executor
// package turns these types into the pipeline that every tool call goes
// through:
//
//	tool before hooks → global before hooks → middleware → tool
//	  → global after hooks → tool after hooks
//
// # Concurrency
//
// A Registry is safe for concurrent use, including changes while calls run.
// A registered Tool is immutable: GetTool returns a shared pointer that
// callers must treat as read-only. A Session is safe for concurrent use.
// Call and Result values belong to the goroutine that runs the call; hooks
// and middleware must not retain them after returning.
package core
