package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestModelTimeoutFlag: --model-timeout is read as a duration; bad values
// are usage errors. What it does to a provider is tested with the root
// package's ModelTimeout (TestModelTimeout).
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

}
