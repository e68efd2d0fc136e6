//go:build race

package tools_test

// raceEnabled: the race detector's shadow memory counts toward a child's
// address-space limit, so less of the limit is left for the snippet.
const raceEnabled = true
