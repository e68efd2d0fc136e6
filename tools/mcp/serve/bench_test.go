package serve

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/agentsh/agentsh/internal/mcpbench"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func BenchmarkCall(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run("stdio-pipe/clients="+itoa(clients), func(b *testing.B) {
			s := newServer(b, newExec(b, textTool("look", "seen", true)), Options{})
			var sessions []*sdk.ClientSession
			for range clients {
				sessions = append(sessions, connect(b, s, nil))
			}
			mcpbench.RoundTrips(b, sessions, "look", map[string]any{})
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
			mcpbench.RoundTrips(b, sessions, "look", map[string]any{})
		})
	}
}

func itoa(n int) string {
	if n == 1 {
		return "1"
	}
	return "8"
}
