// Package policydiff re-decides recorded tool calls under two policy sets
// and reports the calls whose decision changes: what a reviewer of a
// policy change asks first ("what would this have blocked in last week's
// runs?"). It is the engine of agentsh policy diff.
//
// # Sources
//
// Read takes the recorded calls from three kinds of file, told apart by
// their content, not their name:
//
//   - audit logs (agentsh --audit FILE): one audit.Record a line; a
//     record of kind call or decide is re-decided with its raw arguments
//     (its arguments when none were kept), its origin and its workdir. A
//     record of kind observe ran outside agentsh's decision and is
//     skipped (counted). The chain of hashes is not checked here: that
//     is agentsh audit verify's job.
//   - saved sessions (agentsh --session NAME): the tool calls of the
//     assistant's messages are the model's calls, in the session's
//     workdir.
//   - recordings (agentsh --record FILE): the tool calls of the model's
//     responses are the model's calls, in the diff's workdir.
//
// A directory stands for the regular files directly in it, in name
// order, hidden files left out; each must be one of the three. A path
// that does not exist but is a session id names that saved session. A
// line that is not the file's kind is an error naming the file and line,
// except a last line cut short (the writer stopped in the middle of it),
// which is skipped and counted.
//
// # Deciding
//
// Diff decides every call under both sets with their Deciders
// (executor.Decide: before hooks, validation and the approval step; no
// middleware, no tool, no approver), on as many goroutines as there are
// CPUs, and keeps the input order. A call changed when its verdict, its
// deciding hook or that hook's reason differs; when the deciding hook
// failed under both sets (an error or a panic, a deny), its error text is
// not compared, since it names the policy's file and lines. Sources
// (file:line) are reported but not compared: the two sets are usually two
// copies of one policy. A call recorded again (the same tool, arguments,
// origin and workdir) is decided once, since its decision would come out
// the same.
//
// Hooks decide as they would have: each call on a throwaway copy of the
// session, so counters a stateful hook keeps start from empty for every
// call, and a hook that reads files reads them as they are now.
//
// # JSON
//
// Report.WriteJSON writes one object, whose shape is stable:
//
//	{
//	  "old": "OLD", "new": "NEW",          the policy sets as given
//	  "calls": 10000,                      calls re-decided
//	  "changed": 3,                        of them, calls that changed
//	  "skipped": 12,                       records not re-decided
//	  "skipped_by": {"observe": 12},       why: observe, torn, failed request
//	  "sources": [{"file": "...", "format": "audit", "calls": 10000}],
//	  "changes": [{                        groups, most calls first
//	    "from": {"verdict": "allow", "hook": "default"},
//	    "to":   {"verdict": "deny", "hook": "writes_only_in_src", "source": "new.star:12"},
//	    "count": 3,
//	    "calls": [{"at": "run.jsonl:4", "format": "audit", "id": "call_4",
//	               "tool": "write_file", "origin": "model", "workdir": "/w",
//	               "args": "{\"path\":\"docs/a.md\"}",
//	               "old_reason": "...", "new_reason": "..."}]
//	  }],
//	  "coverage": [{"hook": "writes_only_in_src",
//	                "old": {"source": "old.star:12", "calls": 0},
//	                "new": {"source": "new.star:12", "calls": 3}}]
//	}
//
// A ruling's "verdict" is allow, ask or deny; "hook" is the hook or the
// step that decided, named as traces and audit logs name it
// (core.Settled): a before hook, the approval step ("default",
// "permissions", "session"), "canonical", "schema"; absent for arguments
// that are not an object. "error_kind" is unknown_tool or
// invalid_arguments when the call would fail so; "failed" is true when
// the deciding hook failed. "args" is a preview of the recorded arguments (at most 120
// characters). "coverage" is there with Options.Coverage: every hook that
// decided a call or is registered in either set, "old" or "new" null
// when the hook is not in that set.
package policydiff
