// Package stats holds counters the search backends keep for benchmarks.
package stats

import "sync/atomic"

// FilesOpened counts the files the native backend opened to search them.
var FilesOpened atomic.Int64

// RipgrepFallbacks counts the searches the ripgrep backend handed to the
// native backend (rg missed part of the tree, or printed what it should
// not).
var RipgrepFallbacks atomic.Int64
