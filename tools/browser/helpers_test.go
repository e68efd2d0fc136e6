package browser

import (
	"context"
	"net"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testLookup resolves meta.rebind.test to 169.254.169.254, rebind.test and
// its other subdomains to 127.0.0.1, and anything else as the system does.
func testLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if host == "meta.rebind.test" {
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	if host == "rebind.test" || strings.HasSuffix(host, ".rebind.test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func port(t *testing.T, s *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// loadScale is how much longer than on an idle machine a step may take:
// the load average per CPU (from /proc/loadavg where there is one),
// between 1 and 8. Chromium's cold start takes about a second idle and
// 10–14 s on a busy machine.
func loadScale() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return min(max(load/float64(runtime.NumCPU()), 1), 8)
}

// scaled is d times loadScale.
func scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * loadScale())
}

// step bounds one step of a test that drives the browser: d scaled for
// the machine's load, from now, ending before the test binary's own
// deadline (-timeout) so that a stuck step fails with its own message.
func step(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	deadline := time.Now().Add(scaled(d))
	if td, ok := t.Deadline(); ok && td.Add(-5*time.Second).Before(deadline) {
		deadline = td.Add(-5 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}
