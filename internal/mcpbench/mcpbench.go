// Package mcpbench measures tools/call round trips for the benchmarks of
// agentsh mcp serve, in process and through a real server process.
package mcpbench

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// RoundTrips makes b.N calls of name(args) shared out over the sessions,
// each session one goroutine, and reports p50, p95 and calls/s.
func RoundTrips(b *testing.B, sessions []*sdk.ClientSession, name string, args map[string]any) {
	lat := make([]time.Duration, b.N)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	b.ResetTimer()
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= b.N {
					return
				}
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
				lat[i] = time.Since(start)
				if err != nil || res.IsError {
					b.Errorf("call %s: %v %+v", name, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	Sort(lat)
	b.ReportMetric(float64(Percentile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(Percentile(lat, 0.95).Microseconds()), "p95-µs")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// Sort sorts latencies in place, shortest first.
func Sort(lat []time.Duration) { sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] }) }

// Percentile is the p-th percentile (0..1) of sorted latencies.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}
