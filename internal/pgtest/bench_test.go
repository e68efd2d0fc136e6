package pgtest

import (
	"fmt"
	"os"
	"testing"
)

// BenchmarkStartCluster is what Start costs a test: initdb, a server
// start up to its first connection, and its stop.
func BenchmarkStartCluster(b *testing.B) {
	if _, err := findBinDir(); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		dir, err := os.MkdirTemp("", "pgtest-bench-")
		if err != nil {
			b.Fatal(err)
		}
		c, err := StartCluster(dir)
		if err != nil {
			os.RemoveAll(dir)
			b.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(dir)
	}
}

// BenchmarkCreateDatabase is what Shared costs a test once the cluster
// runs: a connection and CREATE DATABASE.
func BenchmarkCreateDatabase(b *testing.B) {
	c := startIn(b, tempDir(b))
	i := 0
	for b.Loop() {
		i++
		if _, err := c.CreateDatabase(fmt.Sprint("bench", i)); err != nil {
			b.Fatal(err)
		}
	}
}
