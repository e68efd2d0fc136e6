//go:build race

package sandbox

// raceEnv is added to a child's environment when this program is built
// with the race detector, whose runtime otherwise sleeps a second at exit
// (GORACE atexit_sleep_ms) to let other threads report.
const raceEnv = "GORACE=atexit_sleep_ms=0"
