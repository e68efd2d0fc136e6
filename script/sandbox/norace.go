//go:build !race

package sandbox

// raceEnv is empty without the race detector; see race.go.
const raceEnv = ""
