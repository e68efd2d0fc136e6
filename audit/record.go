package audit

import (
	"encoding/json"
	"time"

	"github.com/agentsh/agentsh/core"
)

// Kinds of record: what the process that wrote it did with the call.
const (
	// KindCall is a call that went through the pipeline: it ran, or the
	// policies or the approver refused it.
	KindCall = "call"
	// KindDecide is a ruling without a run: a hook adapter's pre-tool
	// event, whose agent runs the tool (or not) on agentsh's verdict.
	KindDecide = "decide"
	// KindObserve is a call that ran outside agentsh and was shown to its
	// after hooks: a hook adapter's post-tool event.
	KindObserve = "observe"
)

// Record is one line of an audit log: one call, canonical, with its
// decision records and a summary of its outcome. Seq, Prev and Hash are
// the chain, filled in by Log.Append; the rest is what the writer saw.
type Record struct {
	// Seq numbers the records of a log from 1, without gaps.
	Seq uint64 `json:"seq"`
	// Prev is the Hash of the record before this one ("" for the first).
	Prev string `json:"prev"`
	// Time is when the call ended (decide: when it was decided), UTC.
	Time time.Time `json:"time"`
	// Kind is KindCall, KindDecide or KindObserve.
	Kind string `json:"kind"`
	// Via says which agentsh command wrote the record: "run", "call",
	// "ask", "repl", "mcp serve", "hook claude-code", ...
	Via  string `json:"via,omitempty"`
	Call Call   `json:"call"`
	// Decisions is the call's decision trail (core.Result.Decisions).
	Decisions []core.Decision `json:"decisions"`
	Outcome   Outcome         `json:"outcome"`
	// Hash is the hex SHA-256 of the record's line up to the hash member
	// itself (see the package doc); it is always the last member.
	Hash string `json:"hash"`
}

// Call is a recorded call.
type Call struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Args are the canonical arguments the call ran (or was decided) with,
	// after any rewrite; RawArgs what its caller sent. A policy diff
	// re-decides RawArgs: that is what a policy sees first.
	Args    json.RawMessage `json:"args"`
	RawArgs json.RawMessage `json:"raw_args,omitempty"`
	Origin  string          `json:"origin"`
	WorkDir string          `json:"workdir,omitempty"`
	// Agent and ParentAgent are the agent that made the call ("main",
	// "main/1") and its parent, as in core.Call.
	Agent       string `json:"agent,omitempty"`
	ParentAgent string `json:"parent_agent,omitempty"`
}

// Outcome summarizes what became of the call. Outputs are not kept, only
// their size and digest, so a log holds no more than the decisions need.
type Outcome struct {
	// Verdict is the pipeline's: allow when the call ran (or would run),
	// ask when it waits on an approval (decide only), deny when it did
	// not run, none when agentsh had no say (observe: the call ran in
	// another agent). Hook, Source and Reason name what decided it, as
	// core.Settled does.
	Verdict core.Verdict `json:"verdict"`
	Hook    string       `json:"hook,omitempty"`
	Source  string       `json:"source,omitempty"`
	Reason  string       `json:"reason,omitempty"`
	// Sandbox is the profile the call's commands ran in, for sandboxed
	// tools.
	Sandbox core.Sandbox `json:"sandbox,omitempty"`
	// OK says the call ran and succeeded; ErrorKind and Error say why not.
	OK        bool   `json:"ok"`
	ErrorKind string `json:"error_kind,omitempty"`
	Error     string `json:"error,omitempty"`
	// OutputBytes and OutputSHA256 describe the output the caller got.
	OutputBytes  int    `json:"output_bytes,omitempty"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	// DurationMS is how long the call took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Answered is, in the records of a hook adapter (decide, observe),
	// what agentsh answered the other agent: allow, ask or deny, left
	// out when agentsh had no opinion and the agent's own permissions
	// decide. Verdict is the pipeline's, which may be stronger: a
	// model's default asks where the adapter answers nothing.
	Answered core.Verdict `json:"answered,omitempty"`
}
