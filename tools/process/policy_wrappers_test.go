package process

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

// TestWrapperTable runs each case through the policy. (Package shell
// checks that every part of every row of its wrappers table has a case.)
func TestWrapperTable(t *testing.T) {
	p := ShellPolicy{Block: []string{"rm"}}
	for _, c := range bashcmdtest.WrapperCases() {
		err := p.Check(c.Cmd)
		switch {
		case c.Want == "" && err != nil:
			t.Errorf("%s: Check(%q) = %v, want nil", c.Row, c.Cmd, err)
		case c.Want != "" && (err == nil || !strings.Contains(err.Error(), c.Want)):
			t.Errorf("%s: Check(%q) = %v, want a refusal with %q", c.Row, c.Cmd, err, c.Want)
		}
	}
}
