package skills_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/agent/skills"
	"github.com/agentsh/agentsh/internal/proctest"
)

// bombEnv, set in the environment of this test binary, makes
// TestAliasBomb parse the skills it names instead of starting a child.
const bombEnv = "AGENTSH_SKILLS_BOMB_CHILD"

// billionLaughs returns front matter whose last alias stands for 9^9
// strings if expanded, with description set to desc.
func billionLaughs(name, desc string) string {
	var b strings.Builder
	b.WriteString("---\nname: " + name + "\n")
	b.WriteString(`l0: &l0 "lol"` + "\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("description: " + desc + "\n---\nbody\n")
	return b.String()
}

// TestAliasBomb: a document of aliases of aliases costs what its text
// does. It is parsed in a child process under an address-space limit, so
// a parser that expanded the aliases would fail the test, not the machine.
func TestAliasBomb(t *testing.T) {
	if paths := os.Getenv(bombEnv); paths != "" {
		bombChild(t, strings.Split(paths, ":"))
		return
	}
	dir := t.TempDir()
	ok := writeSkill(t, dir, "bomb", billionLaughs("bomb", "Fine."))
	bad := writeSkill(t, dir, "bomb-ref", billionLaughs("bomb-ref", "*l9"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAliasBomb$", "-test.v")
	cmd.Env = append(os.Environ(), bombEnv+"="+ok+":"+bad)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, want := range []string{
		"parsed bomb: Fine.",
		"bomb-ref/SKILL.md: description must be a string",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

// bombChild parses the skills at paths with at most 256 MiB of address
// space more than the process has now.
func bombChild(t *testing.T, paths []string) {
	if err := proctest.LimitAddressSpace(256 << 20); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		s, err := skills.Parse(p)
		if err != nil {
			t.Log(err)
			continue
		}
		t.Logf("parsed %s: %s", s.Name, s.Description)
	}
}
