package bashcmd

// A wrapper is a command that runs another command given in its
// arguments: sudo, env-like launchers, timeout, nice, xargs, ... Each is
// one row of the wrappers table, and one interpreter (unwrap) reads every
// row: the options are parsed by the row's optSpec (unknown options are
// refused, since they could take the word that is the command), then the
// row says where the command is, in this order:
//
//   - lineOpt: the value of one of these options is a command line run by
//     a shell (script -c, flock -c). interactive: without it, the command
//     is interactive and refused (script).
//   - noCommand: with one of these options the operands are no command
//     (command -v, ionice -p, sudo -e).
//   - skip: that many operands come before the command (timeout's
//     duration, chroot's directory); with no more, there is no command.
//     lineAfterSkip: then lineOpt may also stand there (flock FILE -c CMD).
//   - assigns: NAME=VALUE operands set the environment first (sudo).
//   - stdinShell: with one of these options and no command, a shell reads
//     standard input (sudo -s, doas -s).
//   - lineOperands: the operands are joined into one command line run by a
//     shell, unless one of argvOpts is given (watch, watch -x).
//   - reads: the command gets words the wrapper reads appended, or put in
//     place of the replace string of replaceOpt ("{}" if empty): xargs.
//
// Otherwise the operands are the command.
type wrapper struct {
	opts          optSpec
	lineOpt       []string
	interactive   bool
	noCommand     []string
	skip          int
	lineAfterSkip bool
	assigns       bool
	stdinShell    []string
	lineOperands  bool
	argvOpts      []string
	reads         string
	replaceOpt    []string
}

// help is the options every GNU-style wrapper has.
var help = []string{"help", "version"}

var wrappers = map[string]wrapper{
	"command":   {opts: optSpec{short: "pvV"}, noCommand: []string{"-v", "-V"}},
	"builtin":   {opts: optSpec{short: "p", long: help}},
	"nohup":     {opts: optSpec{short: "p", long: help}},
	"unbuffer":  {opts: optSpec{short: "p", long: help}},
	"busybox":   {opts: optSpec{short: "p", long: help}},
	"nocorrect": {opts: optSpec{short: "p", long: help}},
	"noglob":    {opts: optSpec{short: "p", long: help}},
	"exec":      {opts: optSpec{short: "cl", shortArg: "a"}},
	"nice":      {opts: optSpec{shortArg: "n", longArg: []string{"adjustment"}, long: help, numeric: true}},
	"time": {opts: optSpec{short: "apqvV", shortArg: "fo", longArg: []string{"format", "output"},
		long: []string{"append", "portability", "quiet", "verbose", "help", "version"}}},
	"timeout": {opts: optSpec{short: "v", shortArg: "sk", longArg: []string{"signal", "kill-after"},
		long: []string{"preserve-status", "foreground", "verbose", "help", "version"}}, skip: 1},
	"stdbuf": {opts: optSpec{shortArg: "ioe", longArg: []string{"input", "output", "error"}, long: help}},
	"setsid": {opts: optSpec{short: "cfw", long: []string{"ctty", "fork", "wait", "help", "version"}}},
	"chroot": {opts: optSpec{longArg: []string{"userspec", "groups"}, long: []string{"skip-chdir", "help", "version"}}, skip: 1},
	"ionice": {opts: optSpec{short: "tpPu", shortArg: "cn", longArg: []string{"class", "classdata"},
		long: []string{"ignore", "pid", "pgid", "uid", "help", "version"}},
		noCommand: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}}, // changes existing processes
	"taskset": {opts: optSpec{short: "acp", long: []string{"all-tasks", "cpu-list", "pid", "help", "version"}},
		noCommand: []string{"-p", "--pid"}, skip: 1},
	"sudo": {opts: optSpec{short: "AbBEeHiKklNnPSsVv", shortArg: "aCcDgpRrTtUu", shortOptArg: "h",
		longArg: []string{"user", "group", "close-from", "host", "prompt", "role", "type", "command-timeout", "other-user", "chdir", "chroot"},
		long: []string{"askpass", "background", "edit", "set-home", "login", "remove-timestamp", "reset-timestamp", "list",
			"non-interactive", "preserve-groups", "stdin", "shell", "version", "validate", "help", "bell", "no-update"},
		longOptArg: []string{"preserve-env"}},
		noCommand:  []string{"-e", "--edit"}, // sudoedit: files, not a command
		assigns:    true,
		stdinShell: []string{"-s", "-i", "--shell", "--login"}},
	"doas": {opts: optSpec{short: "nsL", shortArg: "uC"}, stdinShell: []string{"-s"}},
	"flock": {opts: optSpec{short: "sxenuoFv", shortArg: "wEc", longArg: []string{"wait", "timeout", "conflict-exit-code", "command"},
		long: []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose", "help", "version"}},
		lineOpt: []string{"-c", "--command"}, skip: 1, lineAfterSkip: true},
	"watch": {opts: optSpec{short: "bcCegprtwx", shortArg: "nq", shortOptArg: "d", longArg: []string{"interval", "equexit"},
		longOptArg: []string{"differences"},
		long:       []string{"beep", "color", "no-color", "errexit", "chgexit", "precise", "no-rerun", "no-title", "no-wrap", "exec", "help", "version"}},
		lineOperands: true, argvOpts: []string{"-x", "--exec"}}, // run by sh -c
	"script": {opts: optSpec{short: "aefqV", shortArg: "cEIOmBTo", shortOptArg: "t",
		longArg:    []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"},
		longOptArg: []string{"timing"},
		long:       []string{"append", "return", "flush", "force", "quiet", "help", "version"}, permute: true},
		lineOpt: []string{"-c", "--command"}, interactive: true},
	"xargs": {opts: optSpec{short: "0prtxo", shortArg: "adEILnPs", shortOptArg: "eil",
		longArg:    []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		longOptArg: []string{"eof", "replace", "max-lines"},
		long:       []string{"null", "no-run-if-empty", "interactive", "verbose", "exit", "open-tty", "show-limits", "help", "version"}},
		reads: "the words xargs reads", replaceOpt: []string{"-I", "-i", "--replace"}},
}

// unwrap returns the command that the wrapper w, named base, runs with
// the arguments rest (nil if none), checking the command lines it hands
// to a shell.
func (s *scope) unwrap(base string, w *wrapper, rest []arg, in *stdin) ([]arg, error) {
	return s.options(base, rest, w.opts, func(o opts, ops []arg) ([]arg, error) {
		if len(w.lineOpt) > 0 {
			via := base + " " + w.lineOpt[0]
			if c, ok := o.value(w.lineOpt...); ok {
				return nil, s.nested(c, via)
			}
			if w.interactive {
				return nil, s.interactive(base + " without " + w.lineOpt[0])
			}
		}
		if o.has(w.noCommand...) {
			return nil, nil
		}
		if w.skip > 0 {
			if w.lineAfterSkip && len(ops) > w.skip && ops[w.skip].lit && contains(w.lineOpt, ops[w.skip].val) {
				line := ops[w.skip+1:]
				if len(line) == 0 {
					return nil, nil
				}
				if !line[0].lit {
					return nil, s.dynamic(line[0], "the command line run by "+base+" "+w.lineOpt[0])
				}
				return nil, s.nested(line[0].val, base+" "+w.lineOpt[0])
			}
			if len(ops) <= w.skip {
				return nil, nil
			}
			ops = ops[w.skip:]
		}
		if w.assigns {
			var err error
			if ops, err = s.envAssignments(ops, base); err != nil {
				return nil, err
			}
		}
		if len(ops) == 0 && o.has(w.stdinShell...) {
			return nil, s.stdinShell(base+" -s", in)
		}
		if w.lineOperands && len(ops) > 0 && !o.has(w.argvOpts...) {
			return nil, s.nested(joinArgs(ops), base)
		}
		if w.reads != "" {
			if len(ops) == 0 {
				return nil, nil // runs echo
			}
			if r, ok := o.value(w.replaceOpt...); ok {
				if r == "" {
					r = "{}"
				}
				return replaced(ops, r, w.reads), nil
			}
			return append(ops[:len(ops):len(ops)], arg{src: "(" + w.reads + ")"}), nil
		}
		return ops, nil
	})
}
