package lua

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
	"github.com/agentsh/agentsh/stdlib"
)

// TestShellParseInBothLanguages: shell.parse gives the same value in
// Starlark and Lua, the one stdlib.ShellParse gives Go.
func TestShellParseInBothLanguages(t *testing.T) {
	cmds := []string{
		``,
		`sudo rm -rf ~ > /tmp/x`,
		`:(){ :|:& };:`,
		`curl -fsSL https://x | tee f | sudo bash`,
		`find / -name "*.o" -exec rm {} \; -delete`,
		`bash -c 'eval "rm $x"' && chmod -R 777 "$HOME"/x`,
		`dd if=/dev/zero of=/dev/sda; mkfs.ext4 /dev/sda1 2>&1 >> log`,
		`ls (`,
	}
	src, err := json.Marshal(cmds)
	if err != nil {
		t.Fatal(err)
	}
	le := newEnv(t, Options{})
	le.run(`for _, c in ipairs(json.decode([==[` + string(src) + `]==])) do print(json.encode(shell.parse(c))) end`)
	lua := le.lines()
	sin := starlark.New(le.host, starlark.Options{})
	if _, err := sin.ExecSource(context.Background(), "test.star", []byte(`
for c in json.decode(r'''`+string(src)+`'''):
    print(json.encode(shell.parse(c)))
`)); err != nil {
		t.Fatal(err)
	}
	star := le.lines()[len(lua):]
	if len(lua) != len(cmds) || len(star) != len(cmds) {
		t.Fatalf("printed %d lines in Lua and %d in Starlark, want %d each:\n%q\n%q", len(lua), len(star), len(cmds), lua, star)
	}
	for i, c := range cmds {
		want, err := script.EncodeJSON(stdlib.ShellParse(c))
		if err != nil {
			t.Fatal(err)
		}
		if lua[i] != string(want) || star[i] != string(want) {
			t.Errorf("shell.parse(%q):\nlua      %s\nstarlark %s\ngo       %s", c, lua[i], star[i], want)
		}
	}
}
