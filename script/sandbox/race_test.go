//go:build race

package sandbox

// raceEnabled: the race detector's shadow memory counts toward a child's
// address-space limit, so less of the limit is left for the snippet.
const raceEnabled = true
