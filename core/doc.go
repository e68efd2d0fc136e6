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
// # Output streams
//
// A caller that shows a call's output to a person as it comes, such as
// agentsh call, asks for it with WithOutputStream. Whether the tool gets
// the stream is the executor's choice: it grants the stream only when
// nothing between the tool and the caller could see or change the output
// (no middleware and no after hook applies to the call, no artifact
// offload is set, no OnEnd callback observes results), and only to the
// call the caller made: hooks and the calls nested in a tool never see it.
// Otherwise the tool's context carries no stream and the output is held in
// the Result as usual.
//
// A tool finds a granted stream with OutputStream. It may ignore it and
// return its output as usual. If it writes to it instead, it writes, byte
// for byte, what a person would have been shown of the held output
// (Result.Display, with a newline added if it lacks one), in whole lines,
// and returns StreamedOutput{}, so that the
// result has Streamed set and no ForLLM, ForUser or Data. A tool that
// fails after writing part of its output returns its error as usual; what
// it wrote stays written.
//
// # Concurrency
//
// A Registry is safe for concurrent use, including changes while calls run.
// A registered Tool is immutable: GetTool returns a shared pointer that
// callers must treat as read-only. A Session is safe for concurrent use.
// Call and Result values belong to the goroutine that runs the call; hooks
// and middleware must not retain them after returning.
package core
