package core_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestValidToolNameIsThePattern: the loop says what the documented
// pattern says, for every byte in every position and at the length limits.
func TestValidToolNameIsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	var names []string
	for c := 0; c < 256; c++ {
		b := string(rune(c))
		if c >= 0x80 {
			b = string([]byte{byte(c)})
		}
		names = append(names, b, "a"+b, b+"z", "a"+b+"z", strings.Repeat("x", 63)+b, strings.Repeat("x", 64)+b)
	}
	names = append(names, "", "ü", strings.Repeat("_", 64), strings.Repeat("-", 65))
	for _, n := range names {
		if got, want := core.ValidToolName(n), pattern.MatchString(n); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", n, got, want)
		}
	}
}
