package lua

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// TestHugeResultIsCut: a Lua tool's huge output reaches the model cut to
// script.MaxOutputBytes, and a script that invokes it sees the same.
func TestHugeResultIsCut(t *testing.T) {
	e := newEnv(t, Options{})
	n := script.MaxOutputBytes + 10
	e.run(fmt.Sprintf(`
tool{name = "big", fn = function() return string.rep("x", %d) end}
tool{name = "fails", fn = function() error(string.rep("y", %d)) end}
local r = invoke_tool("big")
print(#r.output < %d, r.output:sub(-80) == (" bytes in all, the first %d above; config(offload = 65536) keeps whole outputs as artifacts]"):sub(-80))
print(#invoke_tool("fails").error < %d)
`, n, script.MaxErrorBytes+10, script.MaxOutputBytes+200, script.MaxOutputBytes, script.MaxErrorBytes+300))
	wantLines(t, e.lines(), "true\ttrue", "true")
	res := e.invoke("big", `{}`)
	if len(res.ForLLM) > script.MaxOutputBytes+200 || !strings.Contains(res.ForLLM, fmt.Sprintf("[output cut: %d bytes in all", n)) {
		t.Errorf("output of %d bytes", len(res.ForLLM))
	}
}

// TestReStopsAtTimeout: re over a huge text ends with the call's deadline
// (this search once ran for minutes), and re.sub refuses to amplify its
// input without bound.
func TestReStopsAtTimeout(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "scan", fn = function() return #re.findall("[ab]{0,50}c", string.rep("ab", 4 * 1024 * 1024)) end}
middleware(timeout("100ms"), {tools = {"scan"}})
`)
	res := e.invokeBounded("scan", `{}`)
	wantKind(t, res, "timeout")
	err := e.runErr(`re.sub("", string.rep("y", 1024), string.rep("a", 100000))`)
	wantContains(t, err.Error(), "re.sub: the result would be more than 67108864 bytes longer than the input (100000 bytes)")
}
