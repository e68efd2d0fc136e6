// Package jaegertest runs Jaeger (all-in-one, v2) for a test: OTLP
// receivers over HTTP and gRPC and the query API, on free loopback ports,
// keeping traces in memory, stopped when the test ends. Tests check what a
// real tracing backend makes of agentsh's spans through its HTTP API.
//
// Jaeger is not a Go module one can go install at a version (its go.mod
// has a replace directive); .ci/jaeger is a module that builds it, and
// .ci/run builds it once into a cache directory and sets AGENTSH_JAEGER to
// the binary. Without it, Start skips the test, saying how to build it.
package jaegertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// Env names the Jaeger binary.
const Env = "AGENTSH_JAEGER"

// Version is the Jaeger release .ci/jaeger builds.
const Version = "v1.75.0"

// Jaeger is one running Jaeger.
type Jaeger struct {
	// OTLPHTTP and OTLPGRPC are its receivers' URLs, values for
	// OTEL_EXPORTER_OTLP_ENDPOINT; Query is the base URL of its HTTP API.
	OTLPHTTP, OTLPGRPC, Query string
	log                       *logBuffer
}

// logBuffer keeps what Jaeger writes, for a failing test to show; it is
// read while Jaeger may still write.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// config is the smallest all-in-one: OTLP in, memory, the query API; no
// metrics of its own (they would listen on a fixed port).
const config = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: %s
    grpc:
      endpoint: %s
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 1000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s
      http:
        endpoint: %s
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`

// Start starts Jaeger for t and waits until it takes spans and answers
// queries; it is killed when t ends. Without AGENTSH_JAEGER, t is skipped.
func Start(t testing.TB) *Jaeger {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		t.Skipf("%s is not set: build Jaeger %s with `cd .ci/jaeger && go build -o DIR/jaeger github.com/jaegertracing/jaeger/cmd/jaeger` and set %s=DIR/jaeger (.ci/run does)", Env, Version, Env)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v; build it as .ci/run does, or unset %s to skip this test", Env, bin, err, Env)
	}
	addrs := freeAddrs(t, 4)
	query, queryGRPC, grpcIn, httpIn := addrs[0], addrs[1], addrs[2], addrs[3]
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, query, queryGRPC, grpcIn, httpIn), 0o600); err != nil {
		t.Fatal(err)
	}
	j := &Jaeger{OTLPHTTP: "http://" + httpIn, OTLPGRPC: "http://" + grpcIn, Query: "http://" + query, log: &logBuffer{}}
	cmd := exec.Command(bin, "--config", cfg)
	cmd.Stdout, cmd.Stderr = j.log, j.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start jaeger: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		testwait.Within(t, "jaeger to exit", func() { <-exited })
		if t.Failed() {
			t.Logf("jaeger's log:\n%s", j.log)
		}
	})
	// The query API starts with the extensions, the receivers after
	// them: all four must answer.
	testwait.Until(t, "jaeger to listen on "+strings.Join(addrs, ", "), func() bool {
		select {
		case <-exited:
			t.Fatalf("jaeger exited at start: %v\n%s", cmd.ProcessState, j.log)
		default:
		}
		for _, a := range addrs {
			c, err := net.DialTimeout("tcp", a, time.Second)
			if err != nil {
				return false
			}
			c.Close()
		}
		return true
	})
	return j
}

// freeAddrs returns n loopback addresses whose ports were free a moment
// ago: the kernel chose them, and they are closed for Jaeger to take.
func freeAddrs(t testing.TB, n int) []string {
	t.Helper()
	var addrs []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return addrs
}

// Trace is a trace as Jaeger's query API returns it.
type Trace struct {
	TraceID   string             `json:"traceID"`
	Spans     []Span             `json:"spans"`
	Processes map[string]Process `json:"processes"`
}

// Span is one span of a Trace.
type Span struct {
	TraceID       string      `json:"traceID"`
	SpanID        string      `json:"spanID"`
	OperationName string      `json:"operationName"`
	References    []Reference `json:"references"`
	Tags          []KeyValue  `json:"tags"`
	Logs          []struct {
		Fields []KeyValue `json:"fields"`
	} `json:"logs"`
	ProcessID string `json:"processID"`
}

// Reference links a span to another: CHILD_OF its parent.
type Reference struct {
	RefType string `json:"refType"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}

// KeyValue is a tag of a span or a process.
type KeyValue struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// Process is the resource of a trace's spans.
type Process struct {
	ServiceName string     `json:"serviceName"`
	Tags        []KeyValue `json:"tags"`
}

// Tag returns the value of the span's tag key (nil without it).
func (s Span) Tag(key string) any {
	for _, kv := range s.Tags {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// Parent is the span id of the span's parent, "" for a root.
func (s Span) Parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// Traces returns the traces of service, waiting until one has a span
// named until: Jaeger stores what it receives a moment later.
func (j *Jaeger) Traces(t testing.TB, service, until string) []Trace {
	t.Helper()
	var traces []Trace
	testwait.Until(t, fmt.Sprintf("jaeger to hold a trace of %s with a span %q", service, until), func() bool {
		traces = j.query(t, service)
		for _, tr := range traces {
			for _, s := range tr.Spans {
				if s.OperationName == until {
					return true
				}
			}
		}
		return false
	})
	return traces
}

func (j *Jaeger) query(t testing.TB, service string) []Trace {
	t.Helper()
	resp, err := http.Get(j.Query + "/api/traces?limit=100&service=" + url.QueryEscape(service))
	if err != nil {
		t.Fatalf("query jaeger: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("query jaeger: %v", err)
	}
	// Before the first span of the service, Jaeger answers 404 or an
	// empty list, depending on the storage.
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("query jaeger: %s: %s", resp.Status, body)
	}
	var out struct {
		Data []Trace `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("query jaeger: %v in %s", err, body)
	}
	return out.Data
}
