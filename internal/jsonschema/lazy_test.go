package jsonschema

import (
	"strings"
	"sync"
	"testing"
)

// TestMetasOnFirstCompile checks the one change from upstream: no
// meta-schema is compiled at init, and the first Compile — from several
// goroutines at once — compiles them and still checks schemas against
// them. (It must stay the first test of the package to compile anything.)
func TestMetasOnFirstCompile(t *testing.T) {
	drafts := []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}
	for _, d := range drafts {
		if d.meta != nil {
			t.Fatalf("%v's meta-schema was compiled before any Compile", d)
		}
	}
	compile := func(src string) (*Schema, error) {
		c := NewCompiler()
		if err := c.AddResource("mem://s.json", strings.NewReader(src)); err != nil {
			return nil, err
		}
		return c.Compile("mem://s.json")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s, err := compile(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}}}`)
			if err != nil {
				t.Errorf("a valid schema: %v", err)
				return
			}
			if err := s.Validate(map[string]any{"n": 4}); err == nil {
				t.Error(`{"n": 4} passed "maximum": 3`)
			}
			// Only a meta-schema refuses these.
			for _, bad := range []string{
				`{"type": 5}`,
				`{"$schema": "http://json-schema.org/draft-04/schema#", "minLength": -1}`,
				`{"$schema": "http://json-schema.org/draft-07/schema#", "required": "x"}`,
			} {
				_, err := compile(bad)
				if err == nil || !strings.Contains(err.Error(), "validate with") {
					t.Errorf("%s: got %v, want a meta-schema violation", bad, err)
				}
			}
		})
	}
	wg.Wait()
	for _, d := range drafts {
		if d.meta == nil || d.meta.meta != d.meta {
			t.Errorf("%v's meta-schema was not compiled by the first Compile", d)
		}
	}
}

// TestEnumMessage checks the other change: an enum's message is not a
// format string.
func TestEnumMessage(t *testing.T) {
	s, err := CompileString("mem://e.json", `{"enum": ["100%", "50%"]}`)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate("x")
	if err == nil || !strings.Contains(err.Error(), `"100%"`) || strings.Contains(err.Error(), "%!") {
		t.Errorf(`got %v, want the enum's values as written`, err)
	}
}
