package script

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/bashcmd"
	"github.com/agentsh/agentsh/stdlib"
	"github.com/agentsh/agentsh/workpath"
)

// shellModule is the static analysis of bash command lines that the
// shell policy uses (package bashcmd), for policies written in scripts.
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
		{Name: "classify", Params: []Param{{Name: "command", Kind: String},
			{Name: "dir", Kind: String, Optional: true, Default: "."},
			{Name: "workdir", Kind: String, Optional: true, Default: ""},
			{Name: "secrets", Kind: Any, Optional: true},
			{Name: "home", Kind: String, Optional: true, Default: ""}},
			Doc: "where a command line may run, read option by option against the table of known-safe commands: a dict " +
				"with class (safe: every command is known safe; sandbox: it runs confined in the workspace sandbox; " +
				"leaves: it needs the network, writes outside the working directory or to .git, another user or the system; " +
				"catastrophic: it destroys the system or a home), reason, kinds, findings (each class, kind, reason, command) " +
				"and commands (each name, argv, via, sub, class); dir is where it starts (a call's effects.shell dir), " +
				"workdir the absolute working directory (call.workdir), secrets the glob patterns of files that may hold " +
				"secrets (as secret_files: .env, !.env.example, .ssh/), home the home directory; it never runs anything",
			Fn: shellClassify},
	},
}

// shellClassify is shell.classify.
func shellClassify(_ context.Context, a Args) (any, error) {
	var secrets []string
	if v, ok := a["secrets"]; ok && v != nil {
		ps, err := patternsOf(v)
		if err != nil {
			return nil, fmt.Errorf("secrets: %w", err)
		}
		if err := workpath.CheckPatterns(ps); err != nil {
			return nil, fmt.Errorf("secrets: %w", err)
		}
		secrets = ps
	}
	return stdlib.ShellClassify(a["command"].(string), bashcmd.Where{Workdir: a["workdir"].(string),
		Dir: a["dir"].(string), Home: a["home"].(string), Secrets: secrets}), nil
}
