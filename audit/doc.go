// Package audit keeps a tamper-evident log of tool calls: append-only
// JSON lines, one Record per call, each carrying the SHA-256 of the
// record before it.
//
// # Line format
//
// A record is one line of compact JSON whose last member is "hash". The
// hash is the hex SHA-256 of the line's bytes before `,"hash":` — the
// record without its hash — and the next record's "prev" repeats it, so
// changing, dropping, duplicating or reordering any record breaks the
// chain at that record. "seq" numbers the records from 1.
package audit
