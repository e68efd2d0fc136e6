package bashcmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

// TestWrapperTable parses each case and checks that every row of the
// wrappers table, and every part of it that is set, has one. A case that
// runs rm must list rm; one that runs nothing must be OK and list no rm;
// the others must give a reason with want in it.
func TestWrapperTable(t *testing.T) {
	for _, c := range bashcmdtest.WrapperCases() {
		if _, ok := wrappers[c.Row]; !ok {
			t.Errorf("case %q: no row %q", c.Cmd, c.Row)
		}
		a := Parse(c.Cmd)
		rm := false
		for i := range a.Commands {
			rm = rm || a.Commands[i].Name == "rm" && len(a.Commands[i].Via) > 0
		}
		switch {
		case c.Want == "":
			if rm || !a.OK() {
				t.Errorf("%s: Parse(%q) lists rm (%v) or is not OK (%v); want neither", c.Row, c.Cmd, rm, a.Unknown)
			}
		case strings.HasPrefix(c.Want, bashcmdtest.RunsRm):
			if !rm {
				t.Errorf("%s: Parse(%q) lists no rm run by another command; want one", c.Row, c.Cmd)
			}
		default:
			found := false
			for _, u := range a.Unknown {
				found = found || strings.Contains(u.Reason, c.Want)
			}
			if !found {
				t.Errorf("%s: Parse(%q) gives the reasons %q; want one with %q", c.Row, c.Cmd, a.Unknown, c.Want)
			}
		}
	}

	covered := map[[2]string]bool{}
	for _, c := range bashcmdtest.WrapperCases() {
		covered[[2]string{c.Row, c.Field}] = true
	}
	typ := reflect.TypeFor[wrapper]()
	for name, w := range wrappers {
		v := reflect.ValueOf(w)
		for i := range typ.NumField() {
			f := typ.Field(i).Name
			if !v.Field(i).IsZero() && !covered[[2]string{name, f}] {
				t.Errorf("row %s: %s is set, but no case goes through it", name, f)
			}
		}
		if _, twice := commandRules[name]; twice {
			t.Errorf("%s is both a wrapper and a command rule", name)
		}
	}
}
