package script

import (
	"context"

	"github.com/agentsh/agentsh/stdlib"
)

// shellModule is the static analysis of bash command lines that the
// shell policy uses (package shell), for policies written in scripts.
var shellModule = Module{
	Name: "shell",
	Doc: "the static analysis of a bash command line: parse(command) lists every simple command that would run " +
		"(through pipelines, lists, subshells, substitutions, functions and wrappers such as sudo, env, xargs, " +
		"find -exec, bash -c and eval), the redirections, the functions, and why the text alone cannot tell what would run",
	Members: []Builtin{
		{Name: "parse", Params: []Param{{Name: "command", Kind: String}},
			Doc: "a dict: commands (each name, argv, static, dynamic, via, redirects, function, pipe_from), " +
				"redirects (each op, fd, target, static, write, via), functions (each name, recursive), " +
				"unknown (reasons) and ok (no reasons); it never runs anything, and a command line that does not parse " +
				`gives the reason "does not parse: ..."`,
			Fn: func(_ context.Context, a Args) (any, error) { return stdlib.ShellParse(a["command"].(string)), nil }},
	},
}
