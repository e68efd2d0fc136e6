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
// chain at that record. "seq" numbers the records from 1. A line always
// begins with `{"seq":N,"prev":"HASH"` and ends with `,"hash":"HASH"}`,
// so the chain can be read without parsing the rest. Arguments that are
// not JSON, or not UTF-8, are made so (see Log.Append): a record never
// spans lines and is always valid UTF-8.
//
// # Writing
//
// Open opens a log and Log.Append adds a record. Writers — goroutines,
// and processes such as the hook processes an agent starts for each
// event — may share one file: each append takes an exclusive lock on it
// (package internal/filelock), reads where the chain ends and writes its
// line in one write. A writer that dies mid-write leaves a torn last
// line; the next one ends it with a newline and chains on from the last
// whole record, so nothing is lost or overwritten.
//
// # Checking
//
// Verify reads a log and reports how many records chain intact, the
// head (the hash of the last one), the torn lines it went past and the
// first break of the chain, naming the record: changed, dropped,
// duplicated, reordered, or not a record at all. A chain cannot show
// that its last records were cut off, or its tail rewritten with new
// hashes: Report.CheckHead does, given a head kept from before
// somewhere the log's writers cannot reach.
package audit
