package scripttest

import (
	"strings"
	"testing"
)

// TestLineDiff checks that the comparison can fail: different
// transcripts give a diff that shows both sides, equal ones none.
func TestLineDiff(t *testing.T) {
	if d := LineDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("lineDiff of equal texts = %q, want empty", d)
	}
	cases := []struct {
		a, b string
		want []string
	}{
		{"a\nb\nc\n", "a\nB\nc\n", []string{"  a", "- b", "+ B", "  c"}},
		{"ok=True\n", "ok=true\n", []string{"- ok=True", "+ ok=true"}},
		{"x\ny\n", "x\n", []string{"  x", "- y"}},
		{"x\n", "x\ny\n", []string{"  x", "+ y"}},
		{"same\n", "same", []string{"no newline at end"}},
	}
	for _, c := range cases {
		d := LineDiff(c.a, c.b)
		if d == "" {
			t.Errorf("LineDiff(%q, %q) is empty; want a difference", c.a, c.b)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(d, w) {
				t.Errorf("LineDiff(%q, %q) =\n%s\nwant it to contain %q", c.a, c.b, d, w)
			}
		}
	}
}
