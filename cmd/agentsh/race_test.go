//go:build race

package main

// raceEnabled: this test binary is built with the race detector.
const raceEnabled = true
