package serve

import (
	"context"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchCalls makes b.N tools/call round trips over clients (one session
// each, 8 at once when parallel) and reports p50 and p95.
func benchCalls(b *testing.B, sessions []*sdk.ClientSession) {
	lat := make([]time.Duration, b.N)
	var mu sync.Mutex
	next := 0
	b.ResetTimer()
	var wg sync.WaitGroup
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
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "look", Arguments: map[string]any{}})
				lat[i] = time.Since(start)
				if err != nil || res.IsError {
					b.Errorf("call: %v %v", err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkCall(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run("stdio-pipe/clients="+itoa(clients), func(b *testing.B) {
			s := newServer(b, newExec(b, textTool("look", "seen", true)), Options{})
			var sessions []*sdk.ClientSession
			for range clients {
				sessions = append(sessions, connect(b, s, nil))
			}
			benchCalls(b, sessions)
		})
		b.Run("http/clients="+itoa(clients), func(b *testing.B) {
			s := newServer(b, newExec(b, textTool("look", "seen", true)), Options{})
			hs := httptest.NewServer(s.Handler("token"))
			b.Cleanup(hs.Close)
			var sessions []*sdk.ClientSession
			for range clients {
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(context.Background(),
					&sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: httpClient("token"), MaxRetries: -1}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = cs.Close() })
				sessions = append(sessions, cs)
			}
			benchCalls(b, sessions)
		})
	}
}

func itoa(n int) string {
	if n == 1 {
		return "1"
	}
	return "8"
}
