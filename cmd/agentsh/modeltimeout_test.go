package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/openai"
)

// TestModelTimeoutFlag: --model-timeout sets the idle limit of a model's
// responses (and raises the whole-response limit when longer); bad values
// are usage errors; providers without limits are left alone.
func TestModelTimeoutFlag(t *testing.T) {
	o, err := parseArgs([]string{"--model-timeout", "90m", "-c", "1"})
	if err != nil || o.modelWait != 90*time.Minute {
		t.Fatalf("parseArgs: %+v, %v; want a 90m model timeout", o, err)
	}
	for _, bad := range []string{"0s", "-1m", "soon"} {
		_, err := parseArgs([]string{"--model-timeout=" + bad})
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), `--model-timeout: got "`+bad+`"`) {
			t.Errorf("--model-timeout=%s: %v, want a usage error quoting it", bad, err)
		}
	}

	p, err := openai.New(openai.Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.modelLimits(p)
	if err != nil {
		t.Fatal(err)
	}
	lim := got.(provider.Limited).Limits()
	if lim.IdleTimeout != 90*time.Minute || lim.MaxDuration != 90*time.Minute || lim.MaxBytes != provider.DefaultMaxBytes {
		t.Errorf("limits %+v, want idle and max duration 90m, default size", lim)
	}
	if p.Limits().IdleTimeout != provider.DefaultIdleTimeout {
		t.Error("modelLimits changed the provider it was given")
	}
	short := &options{modelWait: time.Minute}
	got, _ = short.modelLimits(p)
	if lim := got.(provider.Limited).Limits(); lim.IdleTimeout != time.Minute || lim.MaxDuration != provider.DefaultMaxDuration {
		t.Errorf("limits %+v, want idle 1m and the default max duration", lim)
	}
	scripted := provider.Func{Label: "scripted model"}
	if got, err := short.modelLimits(scripted); err != nil || got.Name() != "scripted model" {
		t.Errorf("a scripted model became %v, %v", got, err)
	}
	if got, err := short.modelLimits(nil); err != nil || got != nil {
		t.Errorf("no model became %v, %v", got, err)
	}
}
