//go:build !race

package policydiff_test

// corpusSize is the calls of TestDiffGeneratedCorpus; the race detector
// makes deciding ten times slower, so it gets a tenth of them
// (BenchmarkPolicyDiff10k decides 10,000 either way).
const corpusSize = 10_000
