//go:build !race

package main

// raceEnabled: this test binary is built without the race detector.
const raceEnabled = false
