// Package executor runs tool calls through the agentsh pipeline:
//
//  1. the tool's own before hooks, then hooks registered for its name
//  2. global before hooks
//  3. middleware (first registered = outermost) around the innermost step:
//     unknown name → unknown_tool; schema validation (when enabled); Tool.Func
//  4. global after hooks
//  5. the tool's own after hooks, then after hooks registered for its name
//
// # Decisions
//
// Every before hook gives a verdict (core.Verdict): none, allow, ask or
// deny, with or without rewritten arguments. A deny — or a hook that
// fails, panics or times out — ends the before stages at once; otherwise
// every hook runs and the strongest verdict wins (deny > ask > allow >
// none). The approval step then settles the call: an allow runs; no
// opinion takes the default of the Permissions and the call's Origin (a
// person's call runs, a model's runs only for a ReadOnly tool and asks
// otherwise); an ask runs if the tool was approved for the session, else
// only if the Approver consents. Each step is recorded in the result's
// Decisions. Decide evaluates all this for a call without running it.
//
// InvokeTool is the single entry point for one call and ExecuteAll runs a
// batch in serial, parallel or mixed mode with results in call order. Every
// caller — scripts, the agent loop, the CLI, MCP — goes through it; nothing
// else calls Tool.Func.
//
// The package also holds the middleware library: Timeout, Retry, Logging
// (an after hook, so rejected calls are logged too), Redactor, and artifact
// offload with memory and file ArtifactStores and the artifact_read tool.
//
// # Output streams
//
// A stream a caller asks for with core.WithOutputStream is granted to the
// tool of a call made with Invoke or InvokeTool when no middleware or
// after hook applies to the call, no artifact offload is set and no
// OnEnd callback is registered: only then would nothing but the caller
// see the output. Hooks, calls nested in the tool and the calls of
// ExecuteAll never get one.
//
// # The pool bound
//
// A parallel or mixed batch runs its pooled calls at most DefaultConcurrency
// (64) at a time unless a concurrency setting or WithLimit says otherwise.
// A concurrency of 0 means that default, not "unlimited": an unbounded pool
// let one batch of 30,000 calls hold 1.2 GB. Nothing is lost by the bound —
// a bound at least the batch's size runs all of it at once.
//
// # Concurrency
//
// An Executor is safe for concurrent use. Hooks, middleware and settings may
// change while calls run; each call uses the pipeline as it was when the
// call started. Hooks, middleware and OnStart/OnEnd callbacks run on the
// goroutine of their call and must be safe for concurrent use when calls
// overlap (parallel and mixed modes).
package executor
