package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestNormalizeArgs(t *testing.T) {
	for _, in := range []string{"", " ", "\n\t "} {
		got, err := core.NormalizeArgs(json.RawMessage(in))
		if err != nil || string(got) != "{}" {
			t.Errorf("NormalizeArgs(%q) = %s, %v; want {}", in, got, err)
		}
	}
	if got, err := core.NormalizeArgs(nil); err != nil || string(got) != "{}" {
		t.Errorf("NormalizeArgs(nil) = %s, %v", got, err)
	}
	for _, in := range []string{`{}`, `{"a":[1,{"b":null}]}`, ` {"a":1} `} {
		got, err := core.NormalizeArgs(json.RawMessage(in))
		if err != nil {
			t.Errorf("NormalizeArgs(%s): %v", in, err)
			continue
		}
		var m map[string]any
		if json.Unmarshal(got, &m) != nil {
			t.Errorf("NormalizeArgs(%s) = %s, not an object", in, got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`[1]`, "an array"},
		{`42`, "a number"},
		{`"s"`, "a string"},
		{`true`, "a boolean"},
		{`null`, "null"},
		{`nul`, "not valid JSON"},
		{`{`, "not valid JSON"},
		{`{"a":1} {"b":2}`, "not valid JSON"},
		{`{"a":1} trailing`, "not valid JSON"},
		{`{'a':1}`, "not valid JSON"},
	} {
		_, err := core.NormalizeArgs(json.RawMessage(c.in))
		if err == nil {
			t.Errorf("NormalizeArgs(%s) accepted", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("NormalizeArgs(%s) = %q, want it to say %q", c.in, err, c.want)
		}
	}
	// Long input is previewed, not dumped.
	long := "[" + strings.Repeat("1,", 5000) + "1]"
	_, err := core.NormalizeArgs(json.RawMessage(long))
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("error for a long array is %d bytes", len(err.Error()))
	}
}
