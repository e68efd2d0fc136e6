package agentsh

import (
	"testing"
	"time"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/openai"
)

// TestModelTimeout: Config.ModelTimeout sets the idle limit of a model's
// responses (and raises the whole-response limit when longer); providers
// without limits are left alone, and so is the provider given.
func TestModelTimeout(t *testing.T) {
	p, err := openai.New(openai.Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	long := &Shell{cfg: Config{ModelTimeout: 90 * time.Minute}}
	got, err := long.modelLimits(p)
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
	short := &Shell{cfg: Config{ModelTimeout: time.Minute}}
	got, _ = short.modelLimits(p)
	if lim := got.(provider.Limited).Limits(); lim.IdleTimeout != time.Minute || lim.MaxDuration != provider.DefaultMaxDuration {
		t.Errorf("limits %+v, want idle 1m and the default max duration", lim)
	}
	scripted := provider.Func{Label: "scripted model"}
	if got, err := short.modelLimits(scripted); err != nil || got.Name() != "scripted model" {
		t.Errorf("a scripted model became %v, %v", got, err)
	}
}
