package wording

import "testing"

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := OrList(tc.in); got != tc.want {
			t.Errorf("OrList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"run", "call", "explain", "ask", "tools", "sessions", "test", "version"}
	for _, tc := range []struct {
		word, want string
		ok         bool
	}{
		{"tols", "tools", true},
		{"TOOLS", "tools", true},
		{"sesions", "sessions", true},
		{"vers", "version", true}, // a prefix, farther than 2 edits
		{"tset", "test", true},
		{"frobnicate", "", false},
		{"", "", false},
		{"xyzzy", "", false},
	} {
		got, ok := Nearest(tc.word, names)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", tc.word, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := Nearest("tools", nil); ok {
		t.Errorf("Nearest among no names = %q, want none", got)
	}
}
