package stdlib

import "github.com/agentsh/agentsh/bashcmd"

// ShellParse is shell.parse: the analysis of a bash command line
// (package bashcmd) as JSON shapes. The keys:
//
//	commands   every simple command that would run, in the order of the
//	           analysis, a wrapper before the command it runs:
//	  name       the base name of the command (/usr/bin/rm is rm), "" when
//	             the name is not literal ($CMD)
//	  argv       the words, static ones expanded (quotes removed), the
//	             others as written ($HOME, ~/x, "$d"/x, *)
//	  static     every word is static
//	  dynamic    the words of argv that are not static
//	  via        what it was found through, outermost first: wrappers by
//	             name (sudo, env, xargs, find), command lines by what runs
//	             them (bash -c, eval, su -c, trap, ...), $( ), ` `, <( ),
//	             >( ), NAME() for a function body
//	  redirects  the redirections of its own statement (as below)
//	  function   it calls a function the command line declares
//	  pipe_from  the names of the commands whose output it reads through
//	             pipes, in pipeline order
//	redirects  every redirection of the command line:
//	  op, fd     the operator (> >> >| < <> <& >& &> &>> << <<- <<<) and
//	             the descriptor (1 or 0 by default, -1 for {var}>f)
//	  target     the file (or descriptor, here-string, here-document)
//	  static     the target is static
//	  write      a file is opened for writing
//	  via        as for a command
//	functions  the functions declared: name, recursive
//	unknown    why the text alone cannot tell what would run (lowercase
//	           reasons)
//	ok         unknown is empty
func ShellParse(command string) map[string]any {
	a := bashcmd.Parse(command)
	cmds := make([]any, len(a.Commands))
	for i := range a.Commands {
		cmds[i] = shellCommand(&a.Commands[i])
	}
	funcs := make([]any, len(a.Functions))
	for i, f := range a.Functions {
		funcs[i] = map[string]any{"name": f.Name, "recursive": f.Recursive}
	}
	unknown := make([]any, len(a.Unknown))
	for i, u := range a.Unknown {
		unknown[i] = u.Reason
	}
	return map[string]any{
		"commands":  cmds,
		"redirects": shellRedirects(a.Redirects),
		"functions": funcs,
		"unknown":   unknown,
		"ok":        a.OK(),
	}
}

func shellCommand(c *bashcmd.Command) map[string]any {
	argv := make([]any, len(c.Args))
	dynamic := []any{}
	for i, w := range c.Args {
		argv[i] = w.Text
		if !w.Static {
			dynamic = append(dynamic, w.Text)
		}
	}
	return map[string]any{
		"name":      c.Name,
		"argv":      argv,
		"static":    len(dynamic) == 0,
		"dynamic":   dynamic,
		"via":       shellVia(c.Via),
		"redirects": shellRedirects(c.Redirects),
		"function":  c.Function,
		"pipe_from": stringList(c.PipeFrom),
	}
}

func shellRedirects(rs []bashcmd.Redirect) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = map[string]any{
			"op":     r.Op,
			"fd":     int64(r.Fd),
			"target": r.Target.Text,
			"static": r.Target.Static,
			"write":  r.Write,
			"via":    shellVia(r.Via),
		}
	}
	return out
}

func shellVia(via []bashcmd.Hop) []any {
	out := make([]any, len(via))
	for i, h := range via {
		out[i] = h.Name
	}
	return out
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// ShellClassify is shell.classify: the classification of a bash command
// line (bashcmd.Classify) as JSON shapes. The keys:
//
//	class      the strongest class of the findings: "safe" (none),
//	           "sandbox", "leaves" or "catastrophic"
//	reason     the reason of the first finding of that class ("" when safe)
//	kinds      the kinds of the findings, each once, in order (program,
//	           option, unknown, environment, writes, deletes, secret,
//	           pattern, network, outside, protected, user, system, destroys)
//	findings   every reason the command line is not safe:
//	  class, kind, reason
//	  command    the index in commands of the command it is about, -1 for
//	             the command line (a redirection, a variable, a part the
//	             analysis cannot read)
//	commands   every simple command, as in ShellParse:
//	  name, argv, via
//	  sub        the subcommand the table read it by ("diff" of git diff,
//	             "mod download" of go mod download), or ""
//	  class      its own class
func ShellClassify(command string, where bashcmd.Where) map[string]any {
	c := bashcmd.Classify(command, where)
	cmds := make([]any, len(c.Analysis.Commands))
	for i := range c.Analysis.Commands {
		sc := &c.Analysis.Commands[i]
		argv := make([]any, len(sc.Args))
		for j, w := range sc.Args {
			argv[j] = w.Text
		}
		cmds[i] = map[string]any{"name": sc.Name, "argv": argv, "via": shellVia(sc.Via),
			"sub": c.Commands[i].Sub, "class": c.Commands[i].Class.String()}
	}
	findings := make([]any, len(c.Findings))
	for i, f := range c.Findings {
		findings[i] = map[string]any{"class": f.Class.String(), "kind": f.Kind, "reason": f.Reason, "command": int64(f.Command)}
	}
	return map[string]any{
		"class":    c.Class.String(),
		"reason":   c.Reason(),
		"kinds":    stringList(c.Kinds()),
		"findings": findings,
		"commands": cmds,
	}
}
