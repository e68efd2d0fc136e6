package hookadapter

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestToolMapRoundTrip: an agent's call maps onto agentsh's names and
// back unchanged; fields the map does not name pass through both ways; an
// unlisted tool keeps its name and input.
func TestToolMapRoundTrip(t *testing.T) {
	for _, c := range []struct {
		tool, input, name, args string
	}{
		{"Bash", `{"command":"ls","timeout":5000,"run_in_background":false}`, "bash", `{"command":"ls","run_in_background":false,"timeout_ms":5000}`},
		{"Read", `{"file_path":"a.txt","offset":2,"limit":3}`, "read_file", `{"limit":3,"offset":2,"path":"a.txt"}`},
		{"Edit", `{"file_path":"a","old_string":"x","new_string":"y","replace_all":true}`, "edit_file", `{"new_string":"y","old_string":"x","path":"a","replace_all":true}`},
		{"Grep", `{"pattern":"TODO","-i":true,"-A":2}`, "grep", `{"after_context":2,"ignore_case":true,"pattern":"TODO"}`},
		{"mcp__srv__tool", `{"x":1}`, "mcp__srv__tool", `{"x":1}`},
	} {
		can, err := claudeTools.In(c.tool, json.RawMessage(c.input), "")
		if err != nil || can.Name != c.name || string(can.Args) != c.args {
			t.Errorf("In(%s, %s) = %+v %v; want %s %s", c.tool, c.input, can, err, c.name, c.args)
			continue
		}
		back, err := can.Out(can.Args, can.Args, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		json.Unmarshal([]byte(c.input), &want)
		json.Unmarshal(back, &got)
		if w, g := mustJSON(t, want), mustJSON(t, got); w != g {
			t.Errorf("Out(%s, In(...)) = %s, want %s", c.tool, g, w)
		}
	}
}

// TestToolMapRefusesCollisions: two fields that would land under one
// name are an error, never one silently dropped; input that is not an
// object is an error.
func TestToolMapRefusesCollisions(t *testing.T) {
	if _, err := claudeTools.In("Read", json.RawMessage(`{"file_path":"a","path":"b"}`), ""); err == nil || !strings.Contains(err.Error(), `both map to "path"`) {
		t.Errorf("a collision: got %v", err)
	}
	can, err := claudeTools.In("Read", json.RawMessage(`{"file_path":"a"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := can.Out(json.RawMessage(`{"path":"a","file_path":"b"}`), can.Args, "", nil); err == nil {
		t.Error("a collision on the way back: no error")
	}
	for _, bad := range []string{`[1]`, `"x"`, `null`, `{`} {
		if _, err := claudeTools.In("Bash", json.RawMessage(bad), ""); err == nil {
			t.Errorf("In(Bash, %s): no error", bad)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
