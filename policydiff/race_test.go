//go:build race

package policydiff_test

// corpusSize is the calls of TestDiffGeneratedCorpus under the race
// detector (see norace_test.go).
const corpusSize = 1_000
