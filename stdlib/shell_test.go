package stdlib

import (
	"encoding/json"
	"testing"
)

func TestShellParse(t *testing.T) {
	tests := map[string]string{
		`sudo rm -rf ~ > /tmp/x`: `{"commands":[` +
			`{"argv":["sudo","rm","-rf","~"],"dynamic":["~"],"function":false,"name":"sudo","pipe_from":[],"redirects":[{"fd":1,"op":"\u003e","static":true,"target":"/tmp/x","via":[],"write":true}],"static":false,"via":[]},` +
			`{"argv":["rm","-rf","~"],"dynamic":["~"],"function":false,"name":"rm","pipe_from":[],"redirects":[{"fd":1,"op":"\u003e","static":true,"target":"/tmp/x","via":[],"write":true}],"static":false,"via":["sudo"]}],` +
			`"functions":[],"ok":true,"redirects":[{"fd":1,"op":"\u003e","static":true,"target":"/tmp/x","via":[],"write":true}],"unknown":[]}`,
		`:(){ :|:& };:`: `{"commands":[` +
			`{"argv":[":"],"dynamic":[],"function":true,"name":":","pipe_from":[],"redirects":[],"static":true,"via":[":()"]},` +
			`{"argv":[":"],"dynamic":[],"function":true,"name":":","pipe_from":[":"],"redirects":[],"static":true,"via":[":()"]},` +
			`{"argv":[":"],"dynamic":[],"function":true,"name":":","pipe_from":[],"redirects":[],"static":true,"via":[]}],` +
			`"functions":[{"name":":","recursive":true}],"ok":true,"redirects":[],"unknown":[]}`,
		`$RM x`: `{"commands":[{"argv":["$RM","x"],"dynamic":["$RM"],"function":false,"name":"","pipe_from":[],"redirects":[],"static":false,"via":[]}],` +
			`"functions":[],"ok":false,"redirects":[],"unknown":["cannot check the command name: $RM is not a literal word"]}`,
		`ls (`: `{"commands":[],"functions":[],"ok":false,"redirects":[],"unknown":["does not parse: 1:1: ` + "`foo(` must be followed by `)`" + `"]}`,
	}
	for cmd, want := range tests {
		got, err := json.Marshal(ShellParse(cmd))
		if err != nil {
			t.Fatalf("ShellParse(%q) is not JSON: %v", cmd, err)
		}
		if string(got) != want {
			t.Errorf("ShellParse(%q):\ngot  %s\nwant %s", cmd, got, want)
		}
	}
	// Only JSON shapes: the fd is an int64.
	r := ShellParse(`echo 2>&1`)["redirects"].([]any)[0].(map[string]any)
	if _, ok := r["fd"].(int64); !ok {
		t.Errorf("fd is a %T, want int64", r["fd"])
	}
}
