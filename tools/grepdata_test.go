package tools_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools"
)

// A line that is not UTF-8 is printed as it is and given to scripts with
// each byte that is not UTF-8 replaced by U+FFFD, as JSON would.
func TestGrepDataOfLinesThatAreNotUTF8(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{"latin1.txt": "caf\xe9 TODO \xff\xfe end\nTODO fine\n\xc3 TODO\n"})
	res := e.call("grep", map[string]any{"pattern": "TODO", "output_mode": "content"})
	if !res.OK() {
		t.Fatal(res.Err)
	}
	if want := "latin1.txt:1:caf\xe9 TODO \xff\xfe end\nlatin1.txt:2:TODO fine\nlatin1.txt:3:\xc3 TODO\n"; res.ForLLM != want {
		t.Errorf("text %q, want %q", res.ForLLM, want)
	}
	want := `{"lines":[{"line":1,"match":true,"path":"latin1.txt","text":"caf\ufffd TODO \ufffd\ufffd end"},` +
		`{"line":2,"match":true,"path":"latin1.txt","text":"TODO fine"},{"line":3,"match":true,"path":"latin1.txt","text":"\ufffd TODO"}],` +
		`"mode":"content","next_offset":null,"offset":0,"total":3,"truncated":false}`
	want = strings.ReplaceAll(want, `\ufffd`, "\ufffd")
	if got := dataJSON(t, res); got != want {
		t.Errorf("data %s\nwant %s", got, want)
	}
}
