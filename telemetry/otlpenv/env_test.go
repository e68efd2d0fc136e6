package otlpenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	cert := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(cert, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const ep = EnvEndpoint + "=http://127.0.0.1:4318"
	for _, tc := range []struct {
		name string
		env  []string // NAME=VALUE
		want Settings
	}{
		{"nothing set", nil, Settings{}},
		{"an endpoint", []string{ep},
			Settings{On: true, Endpoint: ep, Protocol: "http/protobuf"}},
		{"the traces' endpoint wins in messages", []string{ep, EnvTracesEndpoint + "=https://collector.example:4318/v1/traces"},
			Settings{On: true, Endpoint: EnvTracesEndpoint + "=https://collector.example:4318/v1/traces", Protocol: "http/protobuf"}},
		{"grpc", []string{ep, EnvProtocol + "=grpc"},
			Settings{On: true, Endpoint: ep, Protocol: "grpc"}},
		{"http/json", []string{ep, EnvProtocol + "=http/json"},
			Settings{On: true, Endpoint: ep, Protocol: "http/json"}},
		{"the traces' protocol wins", []string{ep, EnvProtocol + "=http/protobuf", EnvTracesProtocol + "=grpc"},
			Settings{On: true, Endpoint: ep, Protocol: "grpc"}},
		{"disabled", []string{ep, EnvSDKDisabled + "=TRUE", EnvProtocol + "=nonsense"}, Settings{}},
		{"not disabled", []string{ep, EnvSDKDisabled + "=false"},
			Settings{On: true, Endpoint: ep, Protocol: "http/protobuf"}},
		{"exporter none", []string{ep, EnvTracesExporter + "=none"}, Settings{}},
		{"exporter otlp", []string{ep, EnvTracesExporter + "=otlp"},
			Settings{On: true, Endpoint: ep, Protocol: "http/protobuf"}},
		{"content", []string{ep, EnvCaptureContent + "=true"},
			Settings{On: true, Endpoint: ep, Protocol: "http/protobuf", Content: true}},
		{"content without an endpoint", []string{EnvCaptureContent + "=true"}, Settings{}},
		{"settings the exporters read", []string{ep, "OTEL_EXPORTER_OTLP_TIMEOUT=500", "OTEL_EXPORTER_OTLP_HEADERS=api-key=s3cr%20t,x-team=ci",
			"OTEL_EXPORTER_OTLP_COMPRESSION=gzip", "OTEL_EXPORTER_OTLP_INSECURE=true", "OTEL_EXPORTER_OTLP_CERTIFICATE=" + cert,
			"OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG=0.25", "OTEL_BSP_MAX_QUEUE_SIZE=10"},
			Settings{On: true, Endpoint: ep, Protocol: "http/protobuf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(env(tc.env))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got != tc.want {
				t.Errorf("Check = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCheckRefusesBadValues(t *testing.T) {
	const ep = EnvEndpoint + "=http://127.0.0.1:4318"
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		env  []string
		want string // the error's start; it names the variable and value
		next string // what it says to set instead
	}{
		{[]string{ep, EnvSDKDisabled + "=yes"}, "OTEL_SDK_DISABLED=yes:", "want true or false"},
		{[]string{ep, EnvTracesExporter + "=zipkin"}, "OTEL_TRACES_EXPORTER=zipkin:", "set it to otlp, or to none"},
		{[]string{EnvEndpoint + "=localhost:4317"}, "OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4317:", "http://localhost:4317 (grpc)"},
		{[]string{EnvTracesEndpoint + "=ftp://host/x"}, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=ftp://host/x:", "with http:// or https://"},
		{[]string{EnvEndpoint + "=http://"}, "OTEL_EXPORTER_OTLP_ENDPOINT=http://:", "such as http://localhost:4318"},
		{[]string{ep, EnvProtocol + "=http"}, "OTEL_EXPORTER_OTLP_PROTOCOL=http:", "want http/protobuf (the default), http/json or grpc"},
		{[]string{ep, EnvTracesProtocol + "=GRPC"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=GRPC:", "or grpc"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_TIMEOUT=10s"}, "OTEL_EXPORTER_OTLP_TIMEOUT=10s:", "whole number of milliseconds"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_HEADERS=Authorization: Bearer x"}, "OTEL_EXPORTER_OTLP_HEADERS=Authorization: Bearer x:", "NAME=VALUE pairs"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_TRACES_HEADERS=a=1,,b=2"}, "OTEL_EXPORTER_OTLP_TRACES_HEADERS=a=1,,b=2:", "NAME=VALUE pairs"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_HEADERS=api-key=100%"}, "OTEL_EXPORTER_OTLP_HEADERS=api-key=100%:", "the value of api-key is not URL-encoded"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_COMPRESSION=zstd"}, "OTEL_EXPORTER_OTLP_COMPRESSION=zstd:", "want gzip or none"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_INSECURE=1"}, "OTEL_EXPORTER_OTLP_INSECURE=1:", "want true or false"},
		{[]string{ep, "OTEL_EXPORTER_OTLP_CERTIFICATE=" + missing}, "OTEL_EXPORTER_OTLP_CERTIFICATE=" + missing + ":", "cannot read the file"},
		{[]string{ep, "OTEL_TRACES_SAMPLER=jaeger_remote"}, "OTEL_TRACES_SAMPLER=jaeger_remote:", "parentbased_traceidratio"},
		{[]string{ep, "OTEL_TRACES_SAMPLER_ARG=1.5"}, "OTEL_TRACES_SAMPLER_ARG=1.5:", "from 0 to 1"},
		{[]string{ep, "OTEL_BSP_MAX_QUEUE_SIZE=0"}, "OTEL_BSP_MAX_QUEUE_SIZE=0:", "above 0"},
		{[]string{ep, EnvCaptureContent + "=on"}, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=on:", "want true or false"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := Check(env(tc.env))
			if err == nil {
				t.Fatalf("Check(%q) succeeded, want an error", tc.env)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.want) || !strings.Contains(msg, tc.next) {
				t.Errorf("Check(%q) = %q, want it to start %q and say %q", tc.env, msg, tc.want, tc.next)
			}
			if msg[:1] != strings.ToLower(msg[:1]) && !strings.HasPrefix(msg, "OTEL_") {
				t.Errorf("error %q starts with a capital", msg)
			}
		})
	}
}

// TestCheckHostileValues: values that are huge or full of control
// characters are refused with a message of bounded size that a terminal
// prints as it is, never a panic.
func TestCheckHostileValues(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, v := range []string{huge, "\x00\n\r\x1b[2J", "http://[::1", "http://%zz", "héllo" + huge} {
		for _, name := range []string{EnvEndpoint, EnvProtocol, "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_TRACES_SAMPLER_ARG", EnvCaptureContent} {
			vars := []string{EnvEndpoint + "=http://127.0.0.1:1", name + "=" + v}
			_, err := Check(env(vars))
			if err == nil {
				t.Errorf("Check(%s=%.20q) succeeded, want an error", name, v)
				continue
			}
			msg := err.Error()
			if len(msg) > 600 || strings.ContainsAny(msg, "\x00\n\r\x1b") || !utf8.ValidString(msg) {
				t.Errorf("Check(%s=%.20q) = %.200q: want a short printable message", name, v, msg)
			}
		}
	}
}

// env is a getenv over NAME=VALUE pairs.
func env(vars []string) func(string) string {
	m := map[string]string{}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}
