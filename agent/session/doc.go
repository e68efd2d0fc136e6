// Package session saves agent conversations as sessions and loads them
// back, so that a conversation outlives its process.
//
// A session is one file of JSON lines, ID.jsonl, in the store's directory
// ($XDG_STATE_HOME/agentsh/sessions by default; the directory is mode
// 0700, the files 0600). The file is only ever appended to. Its records,
// one a line, each with its type in "t":
//
//	session  the header: id, workdir, provider, created, the writer's pid
//	msg      a message that joined the conversation (a tool result with
//	         the decision records of its call)
//	replace  the conversation was replaced (compaction): every message
//	turn     a model turn ended, with its usage
//	run      a run ended outside a turn (an error, a cancellation)
//	resume   the session was opened again by the process of pid
//
// A turn or run record commits what came before it: it is written, then
// the file is synced, once per turn. Loading replays the records and keeps
// the conversation as of the last commit, byte for byte (tool-call
// arguments verbatim, blocks and cache marks as the conversation held
// them). What follows the last commit — an unfinished turn, a torn last
// line or a corrupt record left by a crash — is left out with a warning
// naming the file and line, and stays in the file: the next writer
// appends a resume record after it (on a line of its own), from which the
// loader goes on with the conversation as of that commit.
//
// One process at a time writes a session: a writer holds an exclusive
// lock (flock) on its file, and a second writer is refused with the
// holder's pid.
//
// A Store and a Session are safe for concurrent use.
package session
