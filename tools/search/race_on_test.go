//go:build race

package search

// raceEnabled: the race detector is on, and the tests that are heavy
// rather than racy run smaller (plain go test runs them full size).
const raceEnabled = true
