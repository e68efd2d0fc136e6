package starlark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// TestHugeResultIsCut: a Starlark tool's huge output reaches the model cut
// to script.MaxOutputBytes, and a script that invokes it sees the same.
func TestHugeResultIsCut(t *testing.T) {
	e := newEnv(t, Options{})
	n := script.MaxOutputBytes + 10
	e.run(fmt.Sprintf(`
tool(name = "big", fn = lambda args: "x" * %d)
tool(name = "fails", fn = lambda args: fail("y" * %d))
r = invoke_tool("big")
print(len(r.output) < %d, r.output.endswith(" bytes in all, the first %d above; config(offload = 65536) keeps whole outputs as artifacts]"))
print(len(invoke_tool("fails").error) < %d)
`, n, script.MaxErrorBytes+10, script.MaxOutputBytes+200, script.MaxOutputBytes, script.MaxErrorBytes+300))
	wantLines(t, e.lines(), "True True", "True")
	res := e.invoke("big", `{}`)
	if len(res.ForLLM) > script.MaxOutputBytes+200 || !strings.Contains(res.ForLLM, fmt.Sprintf("[output cut: %d bytes in all", n)) {
		t.Errorf("output of %d bytes", len(res.ForLLM))
	}
}
