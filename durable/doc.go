// Package durable runs scripts and agent loops as durable workflows of
// DBOS Transact, so that a run outlives the process and the machine.
//
// A run is a workflow; everything in it that is not decided by the script
// itself is a step whose result is journaled in the system database: each
// model request, the work of each tool call (after the pipeline has decided
// to run it), each approval wait and each clock read. The call's canonical
// form and decision records are journaled in a step of their own just
// before its work, so that a resumed run that would decide differently
// stops and says so instead of deciding again.
//
// Resuming a run (Engine.Resume, after a crash, a kill -9 or a parked
// approval, in this process or another) executes the script again from the
// start: the journaled steps return what they returned before, without
// doing the work again, and the run prints what it would have printed had
// it never stopped. A step that was in flight when the run stopped has no
// journaled result; it runs again only when its tool is Idempotent, and
// otherwise the run asks first (a person, or a deferred approval).
//
// Deferred approvals (Approve: "defer") let an unattended run wait: the ask
// is stored as a pending Approval bound to a hash of the canonical call and
// of the loaded policy, and the run parks; any process decides it
// (Engine.Decide), and a resume goes on. An approval expires, is refused
// once the call or the policy changed, and is spent once.
//
// Batches (Engine.Batch) enqueue one run per task on a durable queue that
// worker processes, on one machine or several, take tasks from.
//
// The system database is a SQLite file by default (nothing to install) and
// Postgres for many machines (Config.DB). A run executes its tool calls one
// at a time, so that the journal's order is the same on every execution.
//
// An Engine is safe for concurrent use.
package durable
