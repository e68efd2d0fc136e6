package bashcmd

import (
	"sort"
	"strings"
)

// The commands that run other commands: the analysis lists the command a
// wrapper runs on its own (sudo rm -rf / gives sudo and rm), so a
// wrapper's row says only what it does itself. Most read their options
// from the same declarations the analysis unwraps them with (wrappers).

// wrapperEffects are the options of wrappers that do more than start the
// command: files they write or read, variables they set.
var wrapperEffects = map[string]map[string]effect{
	"time":   {"o": fxWrite, "output": fxWrite},
	"xargs":  {"a": fxRead, "arg-file": fxRead, "process-slot-var": fxEnv},
	"script": {"O": fxWrite, "I": fxWrite, "B": fxWrite, "T": fxWrite, "log-out": fxWrite, "log-in": fxWrite, "log-io": fxWrite, "log-timing": fxWrite, "timing": fxWrite},
}

// optionsOf is the optionSet of a wrapper's optSpec, with effects.
func optionsOf(o optSpec, effects map[string]effect) *optionSet {
	var decl []string
	tok := func(name, suffix string) {
		t := name + suffix
		if fx, ok := effects[name]; ok {
			for n, e := range effectNames {
				if e == fx {
					t += ":" + n
				}
			}
		}
		decl = append(decl, t)
	}
	for _, c := range o.short {
		tok(string(c), "")
	}
	for _, c := range o.shortArg {
		tok(string(c), "=")
	}
	for _, c := range o.shortOptArg {
		tok(string(c), "[=]")
	}
	for _, n := range o.long {
		tok(n, "")
	}
	for _, n := range o.longArg {
		tok(n, "=")
	}
	for _, n := range o.longOptArg {
		tok(n, "[=]")
	}
	if o.numeric {
		decl = append(decl, "#")
	}
	return options(strings.Join(decl, " "))
}

// envOptions are env's options (see scope.env).
var envOptions = options(`i|ignore-environment 0|null u|unset= C|chdir=:dir S|split-string= a|argv0= debug v
	default-signal[=] ignore-signal[=] block-signal[=] list-signal-handling` + gnuHelp)

// sudoOptions are sudo's, with -D and --chdir as one option.
var sudoOptions = options(`A|askpass b|background B|bell C|close-from= D|chdir=:dir E g|group= h|host[=] H|set-home
	i|login K|remove-timestamp k|reset-timestamp l|list n|non-interactive N|no-update P|preserve-groups p|prompt=
	R|chroot= r|role= S|stdin s|shell t|type= T|command-timeout= U|other-user= u|user= V|version v|validate
	e|edit a= c= preserve-env[=] help`)

func addWrappers(add func(*spec, ...string)) {
	names := make([]string, 0, len(wrappers))
	for n := range wrappers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		w := wrappers[name]
		sp := &spec{safe: true, opts: optionsOf(w.opts, wrapperEffects[name]), strict: !w.opts.permute, operands: opCommand}
		switch name {
		case "sudo":
			sp = &spec{opts: sudoOptions, strict: true, operands: opCommand,
				does: &nature{Leaves, KindUser, "runs commands as another user"}}
		case "doas":
			sp.safe, sp.does = false, &nature{Leaves, KindUser, "runs commands as another user"}
		case "chroot":
			sp.safe, sp.does = false, &nature{Leaves, KindUser, "changes the root directory, which only root may"}
		case "script":
			sp.safe, sp.does = false, &nature{Sandbox, KindProgram, "records a terminal session in a file"}
			sp.check = func(k *check) {
				if len(k.p.operands) > 0 {
					k.write(k.p.operands[0])
				} else {
					k.here(KindWrites, "writes the file typescript")
				}
			}
		case "flock":
			sp.check = func(k *check) {
				if len(k.p.operands) > 0 {
					k.write(k.p.operands[0]) // the lock file, made if missing
				}
			}
		}
		add(sp, name)
	}
	add(&spec{safe: true, opts: envOptions, strict: true, operands: opCommand, check: func(k *check) {
		for _, w := range k.p.operands {
			if !(w.Static && strings.Contains(w.Text, "=")) && !(w.Static && w.Text == "-") {
				return // a command: the analysis lists it
			}
		}
		k.sandbox(KindEnvironment, "prints the environment, which may hold secrets")
	}}, "env")
	add(leaving(KindUser, "runs commands as another user"), "su", "runuser", "pkexec", "run0", "sg", "newgrp")
	shell := &spec{safe: true, strict: true, operands: opText, check: shellCheck,
		opts: options(`c s i l e x u v n f h m p r a b B C E H k P t T o= O= norc noprofile rcfile=:run
			init-file=:run login posix restricted verbose noediting debugger dump-strings dump-po-strings
			pretty-print` + gnuHelp)}
	for name := range shells {
		add(shell, name)
	}
	add(program("runs a script"), "source", ".")
	add(program("loads builtins from a shared library, or enables them").with(func(sp *spec) {
		sp.check = func(k *check) {}
	}), "enable")
}

// shellCheck: sh -c 'line' runs a line the analysis reads; a shell
// reading a here-document too; a shell given a file runs a script.
func shellCheck(k *check) {
	if !k.p.given("-c") && len(k.p.operands) > 0 {
		k.sandbox(KindProgram, "runs the script %s", k.p.operands[0].Text)
	}
	k.fetched()
}

// fetched finds a command that runs what comes from the network through
// a pipe: curl x | sh.
func (k *check) fetched() {
	for _, from := range k.cmd.PipeFrom {
		if sp := lookup(from); sp != nil && sp.does != nil && sp.does.kind == KindNetwork {
			k.leaves(KindNetwork, "runs what %s fetches from the network", from)
			return
		}
	}
}
