// Package otlptest is an OTLP trace receiver for tests: it listens on
// loopback for OTLP over HTTP (protobuf and JSON) and over gRPC, and keeps
// the spans it is sent, decoded with the OTLP protobuf definitions. It
// stands in for a collector where a test checks what agentsh sends, not
// what a tracing backend makes of it (Jaeger does that, in the slower
// end-to-end test).
//
// Everything here is safe to call from concurrent goroutines.
package otlptest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agentsh/agentsh/internal/testwait"
)

// Span is one span received, flattened for assertions.
type Span struct {
	TraceID, SpanID, ParentID string // hex; ParentID "" for a root span
	Name                      string
	// Service is the resource's service.name.
	Service string
	// Attrs are the span's attributes: string, int64, float64, bool or
	// []any values.
	Attrs map[string]any
	// Events are the names of the span's events, in order.
	Events []string
	// Error is the status message of a span whose status is error.
	Error  string
	Failed bool
}

// Receiver is an OTLP trace receiver on loopback.
type Receiver struct {
	// HTTP is the base URL of the OTLP/HTTP receiver (traces at
	// /v1/traces), GRPC the URL of the gRPC one: values for
	// OTEL_EXPORTER_OTLP_ENDPOINT.
	HTTP, GRPC string

	mu       sync.Mutex
	spans    []Span
	requests []string // the content type of each request, "grpc" for gRPC
	changed  chan struct{}
}

// Start starts a receiver that runs until t ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{changed: make(chan struct{})}
	hl := listen(t)
	hs := &http.Server{Handler: http.HandlerFunc(r.serveHTTP)}
	go hs.Serve(hl)
	t.Cleanup(func() { hs.Close() })
	r.HTTP = "http://" + hl.Addr().String()

	gl := listen(t)
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, traceService{r: r})
	go gs.Serve(gl)
	t.Cleanup(gs.Stop)
	r.GRPC = "http://" + gl.Addr().String()
	return r
}

// Blackhole returns the URL of a server on loopback that accepts every
// connection and request and never answers, until t ends: a collector that
// hangs.
func Blackhole(t testing.TB) string {
	t.Helper()
	l := listen(t)
	done := make(chan struct{})
	s := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-done:
		case <-req.Context().Done():
		}
	})}
	go s.Serve(l)
	t.Cleanup(func() { close(done); s.Close() })
	return "http://" + l.Addr().String()
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.Error(w, "want POST /v1/traces", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	ct := req.Header.Get("Content-Type")
	switch ct {
	case "application/x-protobuf":
		err = proto.Unmarshal(body, &msg)
	case "application/json":
		err = unmarshalJSON(body, &msg)
	default:
		err = fmt.Errorf("content type %q, want application/x-protobuf or application/json", ct)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(ct, &msg)
	w.Header().Set("Content-Type", "application/x-protobuf")
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(b)
}

// unmarshalJSON decodes OTLP/JSON, whose trace and span ids are hex where
// protobuf's JSON mapping has base64: they are rewritten first.
func unmarshalJSON(body []byte, msg *coltracepb.ExportTraceServiceRequest) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	var fix func(any)
	fix = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					b, err := hex.DecodeString(s)
					if err == nil {
						v[k] = b // encoding/json writes []byte as base64
					}
					continue
				}
				fix(x)
			}
		case []any:
			for _, x := range v {
				fix(x)
			}
		}
	}
	fix(v)
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return protojson.Unmarshal(b, msg)
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, msg *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.r.add("grpc", msg)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) add(how string, msg *coltracepb.ExportTraceServiceRequest) {
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		service, _ := value(attr(rs.GetResource().GetAttributes(), "service.name")).(string)
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, flatten(service, s))
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans = append(r.spans, got...)
	r.requests = append(r.requests, how)
	close(r.changed)
	r.changed = make(chan struct{})
}

func flatten(service string, s *tracepb.Span) Span {
	sp := Span{
		TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
		Name: s.GetName(), Service: service, Attrs: map[string]any{},
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		sp.ParentID = hex.EncodeToString(p)
	}
	for _, kv := range s.GetAttributes() {
		sp.Attrs[kv.GetKey()] = value(kv.GetValue())
	}
	for _, e := range s.GetEvents() {
		sp.Events = append(sp.Events, e.GetName())
	}
	if s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		sp.Failed, sp.Error = true, s.GetStatus().GetMessage()
	}
	return sp
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue()
		}
	}
	return nil
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// Spans returns the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Requests returns how each export request came: its content type
// (application/x-protobuf, application/json) or "grpc".
func (r *Receiver) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Wait waits until a span named name has arrived, bounded by testwait,
// and returns the spans received by then.
func (r *Receiver) Wait(t testing.TB, name string) []Span {
	t.Helper()
	testwait.Within(t, "span "+name+" to arrive", func() {
		for {
			r.mu.Lock()
			spans, changed := slices.Clone(r.spans), r.changed
			r.mu.Unlock()
			if slices.ContainsFunc(spans, func(s Span) bool { return s.Name == name }) {
				return
			}
			<-changed
		}
	})
	return r.Spans()
}
