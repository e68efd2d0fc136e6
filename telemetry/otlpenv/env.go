package otlpenv

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The variables this package reads itself. The exporters read the rest of
// OTEL_EXPORTER_OTLP_* (headers, timeout, TLS); the SDK reads the sampler
// (OTEL_TRACES_SAMPLER), the batch processor (OTEL_BSP_*) and the span
// limits; Check refuses the bad values of those it names in checks, which
// the SDK would otherwise log and ignore.
const (
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	// EnvCaptureContent is the GenAI conventions' opt-in to tool
	// arguments and outputs (message content) on the spans.
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// The OTLP protocols (OTEL_EXPORTER_OTLP_PROTOCOL).
const (
	ProtocolHTTPProtobuf = "http/protobuf" // the default
	ProtocolHTTPJSON     = "http/json"
	ProtocolGRPC         = "grpc"
)

// Settings are what the variables ask for, checked.
type Settings struct {
	// On is whether traces are exported: an endpoint is set, the SDK is
	// not disabled and the traces exporter is not none.
	On bool
	// Endpoint is the variable that names the collector and its value,
	// for messages: "OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318".
	Endpoint string
	// Protocol is http/protobuf, http/json or grpc.
	Protocol string
	// Content is whether tool arguments and outputs go on the spans.
	Content bool
}

// Check reads the variables with getenv (nil is os.Getenv) and checks
// every one this package or the SDK reads. An error names the variable,
// its value and what to set instead. When no endpoint is set, or the SDK
// is disabled, or the traces exporter is none, Settings.On is false and
// the other variables are not checked: nothing reads them.
func Check(getenv func(string) string) (Settings, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var s Settings
	disabled, err := boolVar(get, EnvSDKDisabled)
	if err != nil || disabled {
		return s, err
	}
	switch v := get(EnvTracesExporter); strings.ToLower(v) {
	case "", "otlp":
	case "none":
		return s, nil
	default:
		return s, fmt.Errorf("%s=%s: agentsh exports traces over otlp only; set it to otlp, or to none for no traces", EnvTracesExporter, show(v))
	}
	for _, name := range []string{EnvTracesEndpoint, EnvEndpoint} {
		if v := get(name); v != "" {
			if err := checkEndpoint(name, v); err != nil {
				return s, err
			}
			if s.Endpoint == "" {
				s.Endpoint = name + "=" + v
			}
		}
	}
	if s.Endpoint == "" {
		return s, nil
	}
	s.On = true
	// The traces' own variable wins over the one for every signal.
	name, v := EnvTracesProtocol, get(EnvTracesProtocol)
	if v == "" {
		name, v = EnvProtocol, get(EnvProtocol)
	}
	switch v {
	case "":
		s.Protocol = ProtocolHTTPProtobuf
	case ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC:
		s.Protocol = v
	default:
		return s, fmt.Errorf("%s=%s: want http/protobuf (the default), http/json or grpc", name, show(v))
	}
	for _, c := range checks {
		if v := get(c.name); v != "" {
			if err := c.check(v); err != nil {
				return s, fmt.Errorf("%s=%s: %v", c.name, show(v), err)
			}
		}
	}
	s.Content, err = boolVar(get, EnvCaptureContent)
	return s, err
}

// checkEndpoint refuses what the exporters would quietly replace with
// localhost: an endpoint is a URL with a scheme and a host.
func checkEndpoint(name, v string) error {
	u, err := url.Parse(v)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	return fmt.Errorf("%s=%s: want the collector's URL with http:// or https://, such as http://localhost:4318 (http/protobuf) or http://localhost:4317 (grpc)", name, show(v))
}

func boolVar(get func(string) string, name string) (bool, error) {
	switch v := get(name); strings.ToLower(v) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%s: want true or false", name, show(v))
	}
}

// checks are the variables others read that Check refuses bad values of,
// each with what it wants.
var checks = []struct {
	name  string
	check func(string) error
}{
	{"OTEL_EXPORTER_OTLP_TIMEOUT", milliseconds},
	{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", milliseconds},
	{"OTEL_EXPORTER_OTLP_HEADERS", headers},
	{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", headers},
	{"OTEL_EXPORTER_OTLP_COMPRESSION", compression},
	{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", compression},
	{"OTEL_EXPORTER_OTLP_INSECURE", boolean},
	{"OTEL_EXPORTER_OTLP_TRACES_INSECURE", boolean},
	{"OTEL_EXPORTER_OTLP_CERTIFICATE", readable},
	{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", readable},
	{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", readable},
	{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", readable},
	{"OTEL_EXPORTER_OTLP_CLIENT_KEY", readable},
	{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", readable},
	{"OTEL_TRACES_SAMPLER", sampler},
	{"OTEL_TRACES_SAMPLER_ARG", ratio},
	{"OTEL_BSP_SCHEDULE_DELAY", milliseconds},
	{"OTEL_BSP_EXPORT_TIMEOUT", milliseconds},
	{"OTEL_BSP_MAX_QUEUE_SIZE", count},
	{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", count},
}

func milliseconds(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 0 {
		return fmt.Errorf("want a whole number of milliseconds, such as 10000")
	}
	return nil
}

func count(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n <= 0 {
		return fmt.Errorf("want a whole number above 0")
	}
	return nil
}

func headers(v string) error {
	for _, h := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(h, "=")
		if k = strings.TrimSpace(k); !ok || k == "" || strings.ContainsAny(k, " \t\"(),/:;<=>?@[\\]{}") {
			return fmt.Errorf("%s is not a header: want comma-separated NAME=VALUE pairs, such as api-key=SECRET", strconv.Quote(cut(h)))
		}
		if _, err := url.PathUnescape(val); err != nil {
			return fmt.Errorf("the value of %s is not URL-encoded (%v): write %%25 for a %% sign", k, err)
		}
	}
	return nil
}

func compression(v string) error {
	if v != "gzip" && v != "none" {
		return fmt.Errorf("want gzip or none")
	}
	return nil
}

func boolean(v string) error {
	if s := strings.ToLower(v); s != "true" && s != "false" {
		return fmt.Errorf("want true or false")
	}
	return nil
}

func readable(v string) error {
	f, err := os.Open(v)
	if err != nil {
		return fmt.Errorf("cannot read the file: %v", err)
	}
	return f.Close()
}

func sampler(v string) error {
	switch strings.ToLower(v) {
	case "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio":
		return nil
	}
	return fmt.Errorf("want always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio")
}

func ratio(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 || f > 1 {
		return fmt.Errorf("want a sampling ratio from 0 to 1, such as 0.25")
	}
	return nil
}

// show is v as an error message quotes it: cut after 100 bytes, and in Go
// quotes when it holds what a terminal would not print as it is.
func show(v string) string {
	v = cut(v)
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return strconv.Quote(v)
		}
	}
	return v
}

// cut cuts v after 100 bytes, between characters.
func cut(v string) string {
	if len(v) <= 100 {
		return v
	}
	n := 100
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n] + "..."
}
