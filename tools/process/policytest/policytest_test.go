package policytest

import (
	"strings"
	"testing"
)

// TestArchives checks the shape of the corpus: unique names, a class
// described in the archive's header for every bypass, and the marker
// program in every bypass.
func TestArchives(t *testing.T) {
	header := string(bypassArchive[:strings.Index(string(bypassArchive), "\n-- ")])
	seen := map[string]bool{}
	for _, p := range Bypasses() {
		if seen[p.Name] {
			t.Errorf("bypass %s is listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Class == "" || !strings.Contains(header, "\n  "+p.Class+" ") {
			t.Errorf("bypass %s: class %q is not described in the header", p.Name, p.Class)
		}
		if !strings.Contains(p.Command, "touch") && p.Class != "gettext" { // the catalog of Setup runs it
			t.Errorf("bypass %s does not run touch", p.Name)
		}
	}
	for _, p := range Harmless() {
		if seen[p.Name] {
			t.Errorf("%s is listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Class != "" || strings.TrimSpace(p.Command) == "" {
			t.Errorf("harmless %s: class %q, command %q", p.Name, p.Class, p.Command)
		}
	}
	if p := (Payload{Needs: []string{"no-such-program-policytest"}}); p.Missing() != "no-such-program-policytest" {
		t.Errorf("Missing() = %q", p.Missing())
	}
}
