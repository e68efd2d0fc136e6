package process

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/agentsh/agentsh/bashcmd"
)

// ShellPolicy says which commands a shell command line may run.
//
// IT IS A CONVENIENCE, NOT ISOLATION. It reads the command line before it
// runs and cannot see what happens at run time: a script file, a program
// that runs other programs (make, git aliases, python -c, awk's system(),
// sed's e command, find -delete), a copy or link of a blocked program
// under another name (including a link to /dev/stdin made by an earlier
// command), PATH changes, or code a program loads from a file (LD_PRELOAD,
// enable -f). Use a sandbox (BubblewrapExec) to contain a command; use the
// lists to steer a model away from commands you do not want.
//
// Check reads the command line with bashcmd.Parse, the analysis scripts get
// as shell.parse, and checks the name of every simple command in it: in pipelines, lists (; && ||), subshells,
// { } blocks, $( ) and backquotes, process substitutions, if/for/while/case
// bodies, function bodies, here-documents, and the commands run by
// wrappers: env, command, builtin, exec, nice, nohup, time, timeout, xargs,
// sudo, doas, stdbuf, setsid, chroot, ionice, taskset, flock, watch,
// unbuffer, busybox, jobs -x, find -exec/-execdir/-ok/-okdir, and the
// strings run by sh/bash/dash/zsh/ksh/... -c, su -c, script -c, eval, trap,
// alias, mapfile -C, compgen -C and PROMPT_COMMAND, which are parsed and
// checked in turn. A shell reading commands from standard input, under any
// spelling of it (/dev/stdin, /dev//stdin, /proc/self/root/dev/stdin,
// /proc/self/fd/0, ...; also as source's file, --rcfile, --init-file,
// BASH_ENV or ENV), is checked when the input is a literal here-document
// or here-string, and refused otherwise; other files under /dev and /proc
// are refused there, and so is a file run by a relative name once the
// command line may have changed to a directory the policy cannot follow
// (cd .., cd /dev, cd "$d", CDPATH) or, for a bare name, changed PATH. The
// words find -exec and xargs fill in ({}, xargs -I R, the words xargs
// appends) are not literal. A name is matched by its base name
// (/usr/bin/rm is rm). Builtins are commands too: declare, local, export,
// readonly, typeset, let, read, printf, test and the others are checked
// under their names; the keywords [[ ]], (( )), time, coproc and ! are not
// commands. A function declared in the same command line may be called
// whatever the allow list says (its body is checked); the block list still
// applies to its name.
//
// Bash also runs code that no command names, at the places where it
// evaluates text: the value of a variable in arithmetic ((( x )), $(( x )),
// [[ x -eq 1 ]], let, subscripts, ${s:x}, integer variables) is evaluated
// as an expression, and a subscript in it runs command substitutions, so
// x='a[$(cmd)]'; (( x )) runs cmd; so do names given as text to builtins
// (read, printf -v, unset, test -v, declare, wait -p, ${!x}), prompt
// expansion (${x@P}, PS4), quoted compound assignments
// (declare -a 'x=($(cmd))'), functions and startup files passed in the
// environment (BASH_FUNC_f%%, BASH_ENV), aliases, and translated strings
// ($"..."). With a list set, Check reads the command line as a whole
// (nested command lines included) and allows these only where it can show
// the text is harmless: a variable may be evaluated only if every value the
// command line gives it is a number (x=5, x=$((...)), ((x++)), for i in 1 2)
// and bash does not give it text of its own (_, REPLY, BASH_REMATCH, ...);
// a name given as text must be a name, with a subscript that is itself
// such an expression; prompt strings must be plain text; an alias must be
// a single command whose words are literal and that is not a builtin,
// wrapper or shell the policy reads specially. Name references
// (declare -n), ${x@P}, $"...", fc, bind -x, compgen -W with expansions,
// BASH_ALIASES, BASH_CMDS, BASHOPTS, SHELLOPTS and functions in the
// environment are refused, and so are interactive shells (sh -i, script
// without -c), whose prompts, history and aliases change what runs.
//
// The block list wins over the allow list. An empty Allow allows every
// command not blocked; a non-empty Allow allows only the commands it lists.
// When either list is set, Check fails closed: besides the above, it
// refuses a command whose name is not a literal word ($CMD, "$(echo rm)",
// globs such as /bin/r?, brace expansions, a leading ~ or =), a wrapper
// whose options it does not know, a string run by sh -c or eval that is
// not literal (eval "$x"), and nesting deeper than 8 levels. eval is
// therefore allowed exactly when its own name passes the lists and the
// literal command line it evaluates passes too. When neither list is set,
// every command line that parses is allowed.
//
// Redirections are not commands: `> /etc/passwd` passes (paths are not
// checked; that is the file tools' and the sandbox's job). Words that only
// become commands at run time (the contents of script files and of files
// given to source or ., variables) are not checked.
//
// Every error Check returns wraps ErrRefused, is lowercase and names the
// command, the construct or the list that refused it, or carries the
// parser's message. Check is safe for concurrent use.
type ShellPolicy struct {
	Allow []string
	Block []string
}

// ErrRefused is wrapped by every error ShellPolicy.Check returns.
var ErrRefused = errors.New("refused by the shell policy")

// policyError is a refusal; it wraps ErrRefused.
type policyError struct{ msg string }

func (e *policyError) Error() string { return "shell policy: " + e.msg }
func (e *policyError) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error {
	return &policyError{msg: fmt.Sprintf(format, args...)}
}

// Check returns nil when command may run under p, and an error saying why
// not otherwise: the first refusal in the order of the analysis. An empty
// command (or only comments) runs nothing and is allowed.
func (p ShellPolicy) Check(command string) error {
	a := bashcmd.Parse(command)
	allow, block := nameSet(p.Allow), nameSet(p.Block)
	active := len(allow) > 0 || len(block) > 0
	because := "refused because the block list is set"
	if len(allow) > 0 {
		because = "refused because an allow list is set"
	}
	cmds, unknown := a.Commands, a.Unknown
	for len(cmds) > 0 || len(unknown) > 0 {
		if len(unknown) > 0 && (len(cmds) == 0 || unknown[0].At < cmds[0].At) {
			u := unknown[0]
			unknown = unknown[1:]
			switch {
			case u.Syntax && len(u.Via) == 0:
				return refuse("cannot parse the command: %s", strings.TrimPrefix(u.Reason, "does not parse: "))
			case active:
				return refuse("%s; %s", u.Reason, because)
			}
			continue
		}
		c := &cmds[0]
		cmds = cmds[1:]
		if !active || c.Name == "" && c.Args[0].Text != "" {
			continue // a name that is not literal has a reason of its own
		}
		base := c.Name
		switch {
		case block[base]:
			return refuse("%s%q is on the block list%s", arithPrefix(c.Via), base, where(c.Via))
		case len(allow) > 0 && !allow[base] && !c.Function:
			return refuse("%s%q is not on the allow list%s", arithPrefix(c.Via), base, where(c.Via))
		}
	}
	return nil
}

// where says what runs a command, from the constructs it was found
// through: the wrapper right before it, and the command lines it is in,
// innermost first.
func where(via []bashcmd.Hop) string {
	wrapper, line := "", ""
	if n := len(via); n > 0 && via[n-1].Kind == bashcmd.Wrapper {
		wrapper = via[n-1].Name
	}
	for _, h := range via {
		if h.Kind == bashcmd.Line {
			if line == "" {
				line = h.Name
			} else {
				line = h.Name + " in " + line
			}
		}
	}
	switch {
	case wrapper != "" && line != "":
		return fmt.Sprintf(" (run by %s, in the command line run by %s)", wrapper, line)
	case wrapper != "":
		return fmt.Sprintf(" (run by %s)", wrapper)
	case line != "":
		return fmt.Sprintf(" (in the command line run by %s)", line)
	}
	return ""
}

// arithPrefix names the arithmetic text a command is in (x='a[$(cmd)]'):
// the outermost of each command line, outer ones first.
func arithPrefix(via []bashcmd.Hop) string {
	var sb strings.Builder
	inLine := false
	for _, h := range via {
		switch h.Kind {
		case bashcmd.Line:
			inLine = false
		case bashcmd.Arithmetic:
			if !inLine {
				sb.WriteString(h.Name + ": ")
				inLine = true
			}
		}
	}
	return sb.String()
}

// Active reports whether either list is set; without one, Check allows
// every command line that parses.
func (p ShellPolicy) Active() bool {
	return len(nameSet(p.Allow)) > 0 || len(nameSet(p.Block)) > 0
}

// Names reports whether the allow list names the program (by its base
// name) and the block list does not: what a caller that cannot check a
// program's input (python3 code, say) may take as leave to run it.
func (p ShellPolicy) Names(program string) bool {
	base := path.Base(program)
	return nameSet(p.Allow)[base] && !nameSet(p.Block)[base]
}

func nameSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			m[path.Base(n)] = true
		}
	}
	return m
}
