package bashcmd

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// commandRule reads the arguments of a command the policy knows: it
// checks what the command runs or evaluates, and returns the command line
// a wrapper runs next (nil if none).
type commandRule func(s *scope, base string, rest []arg, in *stdin) ([]arg, error)

// commandRules are the other commands whose arguments the policy reads
// (wrappers are data, in wrappers): env and su, which have their own ways
// to give a command; find -exec; builtins that run strings or evaluate
// names; and the declarations. (A map filled by init, since the rules
// call back into the scope.)
var commandRules map[string]commandRule

func init() {
	commandRules = map[string]commandRule{
		"env":     func(s *scope, _ string, rest []arg, _ *stdin) ([]arg, error) { return s.env(rest) },
		"su":      (*scope).su,
		"runuser": (*scope).su,
		"find":    func(s *scope, _ string, rest []arg, _ *stdin) ([]arg, error) { return nil, s.find(rest) },
		"eval": func(s *scope, _ string, rest []arg, _ *stdin) ([]arg, error) {
			if len(rest) > 0 && rest[0].lit && rest[0].val == "--" {
				rest = rest[1:]
			}
			for _, a := range rest {
				if !a.lit {
					return nil, s.dynamic(a, "the command line run by eval")
				}
			}
			return nil, s.nested(joinArgs(rest), "eval")
		},
		"trap": func(s *scope, base string, rest []arg, _ *stdin) ([]arg, error) {
			return s.options(base, rest, optSpec{short: "lp"}, func(o opts, ops []arg) ([]arg, error) {
				if len(ops) < 2 || (ops[0].lit && (ops[0].val == "-" || ops[0].val == "")) {
					return nil, nil // resets or lists signal handlers
				}
				if !ops[0].lit {
					return nil, s.dynamic(ops[0], "the command line run by trap")
				}
				return nil, s.nested(ops[0].val, "trap")
			})
		},
		"source": (*scope).source,
		".":      (*scope).source,
		"hash":   (*scope).hash,
	}
	for name, rule := range builtinRules {
		commandRules[name] = rule
	}
}

// wrapped returns the command a wrapper runs (nil if none or not a
// wrapper), checking along the way the strings it runs as command lines
// and what builtins evaluate.
func (s *scope) wrapped(base string, rest []arg, in *stdin) ([]arg, error) {
	if w, ok := wrappers[base]; ok {
		return s.unwrap(base, &w, rest, in)
	}
	if rule, ok := commandRules[base]; ok {
		return rule(s, base, rest, in)
	}
	if isShell(base) {
		return nil, s.shell(base, rest, in)
	}
	return nil, nil
}

// readSpecially reports whether the policy reads the arguments of the
// command named base (a wrapper, a shell, a builtin that evaluates).
func readSpecially(base string) bool {
	_, wrapper := wrappers[base]
	_, rule := commandRules[base]
	return wrapper || rule || isShell(base)
}

func (s *scope) su(base string, rest []arg, in *stdin) ([]arg, error) {
	return s.options(base, rest, optSpec{short: "lmpfP", shortArg: "cgGswu", longArg: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user"},
		long: []string{"login", "preserve-environment", "fast", "pty", "help", "version"}, permute: true},
		func(o opts, ops []arg) ([]arg, error) {
			if c, ok := o.value("-c", "--command", "--session-command"); ok {
				return nil, s.nested(c, base+" -c")
			}
			if len(ops) > 1 && base == "runuser" {
				return nil, s.unknown("cannot tell which command runuser %s runs", joinArgs(ops))
			}
			return nil, s.stdinShell(base, in)
		})
}

func (s *scope) source(base string, rest []arg, in *stdin) ([]arg, error) {
	ops := rest
	if len(ops) > 0 && ops[0].lit && ops[0].val == "--" {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return nil, s.scriptFile(base, ops[0], in)
}

func (s *scope) hash(_ string, rest []arg, _ *stdin) ([]arg, error) {
	for i, a := range rest {
		if !a.lit {
			return nil, s.dynamic(a, "an argument of hash")
		}
		if strings.HasPrefix(a.val, "-p") && len(a.val) > 2 {
			s.program(a.val[2:], "hash -p")
			return nil, nil
		}
		if a.val == "-p" && i+1 < len(rest) {
			if !rest[i+1].lit {
				return nil, s.dynamic(rest[i+1], "the program given to hash -p")
			}
			s.program(rest[i+1].val, "hash -p")
			return nil, nil
		}
	}
	return nil, nil
}

var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "pdksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true,
}

func isShell(base string) bool { return shells[base] }

// shell checks `sh [options] -c string`, a shell reading commands from
// standard input, and the files a shell runs at startup. A script file is
// not checked; standard input under any name is. An interactive shell is
// refused.
func (s *scope) shell(base string, rest []arg, in *stdin) error {
	cflag, sflag := false, false
	i := 0
options:
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return s.dynamic(a, "an option of "+base)
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			if name != "--rcfile" && name != "--init-file" {
				continue
			}
			if !hasVal {
				if i++; i >= len(rest) {
					return nil
				}
				if !rest[i].lit {
					return s.dynamic(rest[i], "the file given to "+base+" "+name)
				}
				val = rest[i].val
			}
			if err := s.scriptFile(base+" "+name, arg{val: val, lit: true, src: val}, in); err != nil {
				return err
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'i':
					if v[0] == '-' {
						return s.interactive(base + " -i")
					}
				case 'o', 'O':
					i++ // takes the next word
					if i < len(rest) && !rest[i].lit {
						return s.dynamic(rest[i], "an option of "+base)
					}
				}
			}
		default:
			break options
		}
	}
	ops := rest[min(i, len(rest)):]
	if cflag {
		if len(ops) == 0 {
			return nil // bash: -c: option requires an argument
		}
		if !ops[0].lit {
			return s.dynamic(ops[0], "the command line run by "+base+" -c")
		}
		return s.nested(ops[0].val, base+" -c")
	}
	if len(ops) > 0 && !sflag {
		return s.scriptFile(base, ops[0], in)
	}
	return s.stdinShell(base, in)
}

// interactive gives the reason for an interactive shell: its prompts,
// history expansion and aliases change what runs.
func (s *scope) interactive(what string) error {
	return s.unknown("cannot check an interactive shell (%s): its prompts, history expansion and aliases change what runs; run the commands with sh -c instead", what)
}

// scriptFile checks the file a shell runs (or sources, or reads at
// startup): a file is not checked, but a file that is not literal (<(cmd),
// "$f"), or that is standard input, another file descriptor, a device or
// a /proc file under any spelling of it, is.
func (s *scope) scriptFile(who string, file arg, in *stdin) error {
	if !file.lit {
		return s.dynamic(file, "the script run by "+who)
	}
	if !path.IsAbs(file.val) {
		s.dirs.relative = append(s.dirs.relative, scriptRun{who, file.val})
	}
	switch scriptSource(file.val) {
	case fromStdin:
		return s.stdinShell(who, in)
	case fromDevice:
		return s.unknown("cannot check the commands %s reads from %s: it is a file descriptor, a device or a /proc file", who, file.val)
	}
	return nil // a script file: not checked
}

// stdinShell checks a shell that reads its commands from standard input.
func (s *scope) stdinShell(who string, in *stdin) error {
	if in == nil {
		return s.unknown("cannot check the commands %s reads from standard input; give them literally in a here-document, or use sh -c", who)
	}
	if !in.lit {
		return s.unknown("cannot check the commands %s reads from %s, which is not literal", who, in.src)
	}
	return s.nested(in.script, who+" reading standard input")
}

// env checks env's options and returns the command it runs. The words of
// -S (--split-string) take its place, as env does.
func (s *scope) env(rest []arg) ([]arg, error) {
	splits := 0
	// value returns the value of an option: attached, or the next word.
	value := func(attached string, hasVal bool, i *int) (string, bool, error) {
		if hasVal {
			return attached, true, nil
		}
		*i++
		if *i >= len(rest) {
			return "", false, nil
		}
		if !rest[*i].lit {
			return "", false, s.dynamic(rest[*i], "an argument of env")
		}
		return rest[*i].val, true, nil
	}
	// split replaces rest[:i+1] by the words of str.
	split := func(str string, i int) error {
		if splits++; splits > MaxNesting {
			return s.unknown("env -S nested more than %d times is not checked", MaxNesting)
		}
		w, err := s.splitString(str)
		if err != nil {
			return err
		}
		rest = append(w, rest[i+1:]...)
		return nil
	}
next:
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit || !strings.HasPrefix(a.val, "-") {
			if a.assign || a.lit {
				// NAME=VALUE assignments, then the command.
				return s.envAssignments(rest[i:], "env")
			}
			return nil, s.dynamic(a, "an argument of env")
		}
		v := a.val
		switch {
		case v == "--":
			return s.envAssignments(rest[i+1:], "env")
		case v == "-":
			// -i
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch name {
			case "ignore-environment", "null", "debug", "list-signal-handling", "help", "version":
			case "default-signal", "ignore-signal", "block-signal":
			case "unset", "chdir", "argv0", "split-string":
				val, ok, err := value(val, hasVal, &i)
				if err != nil || !ok {
					return nil, err
				}
				if name == "split-string" {
					if err := split(val, i); err != nil {
						return nil, err
					}
					i = -1
					continue next
				}
			default:
				return nil, s.unknown("cannot tell which command env runs: unknown option %s", v)
			}
		default:
			for j := 1; j < len(v); j++ {
				switch c := v[j]; c {
				case 'i', '0', 'v':
				case 'u', 'C', 'a', 'S':
					val, ok, err := value(v[j+1:], j+1 < len(v), &i)
					if err != nil || !ok {
						return nil, err
					}
					if c == 'S' {
						if err := split(val, i); err != nil {
							return nil, err
						}
						i = -1
					}
					continue next
				default:
					return nil, s.unknown("cannot tell which command env runs: unknown option -%c", c)
				}
			}
		}
	}
	return nil, nil
}

// splitString splits env -S's string into words, as a shell would.
func (s *scope) splitString(str string) ([]arg, error) {
	f, err := parseBash(str)
	if le, ok := isLimit(err); ok {
		return nil, s.unknown("%s", cannotRead("the string of env -S", le))
	}
	if err != nil {
		return nil, s.unknown("cannot parse the string of env -S: %v", err)
	}
	if len(f.Stmts) == 0 {
		return nil, nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if len(f.Stmts) != 1 || !ok || len(call.Assigns) > 0 || len(f.Stmts[0].Redirs) > 0 {
		return nil, s.unknown("cannot tell which command env -S %q runs", shorten(str))
	}
	out := words(call.Args)
	for i, a := range out {
		// The words are not in the command line's text: keep their own.
		if start, end := a.word.Pos().Offset(), a.word.End().Offset(); start <= end && int(end) <= len(str) {
			out[i].src = str[start:end]
		}
	}
	return out, nil
}

// find checks the commands of -exec, -execdir, -ok and -okdir.
func (s *scope) find(rest []arg) error {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return s.dynamic(a, "an argument of find")
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(rest) && !(rest[j].lit && (rest[j].val == ";" || rest[j].val == "+")) {
				j++
			}
			if err := s.argv(replaced(rest[i+1:j], "{}", "a file name find puts there"), nil, "find"); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// replaced marks the words that contain repl as not literal: a program
// puts text it reads in place of repl.
func replaced(args []arg, repl, what string) []arg {
	out := make([]arg, len(args))
	for i, a := range args {
		out[i] = a
		if a.lit && strings.Contains(a.val, repl) {
			out[i] = arg{src: a.source() + " (with " + what + ")"}
		}
	}
	return out
}

// envAssignments checks the NAME=VALUE words before the command of env
// or sudo (every word with a '=', as they read them) and returns the
// command. The names need not be shell names (BASH_FUNC_f%%=...).
func (s *scope) envAssignments(args []arg, via string) ([]arg, error) {
	for len(args) > 0 && args[0].assign {
		a := args[0]
		args = args[1:]
		if a.lit {
			name, val, _ := strings.Cut(a.val, "=")
			if err := s.write(name, textValue(val)); err != nil {
				return nil, err
			}
			continue
		}
		name, _, _ := strings.Cut(a.word.Parts[0].(*syntax.Lit).Value, "=")
		// Messages name the assignment as NAME=VALUE: the value's source
		// is what follows the '='.
		if err := s.write(name, runtimeValue(strings.TrimPrefix(a.source(), name+"="))); err != nil {
			return nil, err
		}
	}
	return args, nil
}

func joinArgs(args []arg) string {
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.val
	}
	return strings.Join(vals, " ")
}

// optSpec describes a wrapper's options.
type optSpec struct {
	short       string   // short options without an argument
	shortArg    string   // short options with an argument (attached or next word)
	shortOptArg string   // short options with an optional, attached argument
	long        []string // long options without an argument
	longArg     []string // long options with an argument (--x=v or --x v)
	longOptArg  []string // long options with an optional argument (--x=v only)
	numeric     bool     // -N is an option (nice -5)
	permute     bool     // options may follow operands (su user -c cmd)
}

// opts are the options a wrapper was given, by name as written without
// its value ("-c", "--command"), with their values.
type opts map[string]string

func (o opts) has(names ...string) bool {
	for _, n := range names {
		if _, ok := o[n]; ok {
			return true
		}
	}
	return false
}

// value returns the value of the last given of names.
func (o opts) value(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := o[n]; ok {
			return v, true
		}
	}
	return "", false
}

// options parses a wrapper's options (GNU style: options first, -- ends
// them) and hands the operands to then. Unknown options are refused, since
// they could take the word that is the command.
func (s *scope) options(base string, rest []arg, spec optSpec, then func(opts, []arg) ([]arg, error)) ([]arg, error) {
	o := opts{}
	var operands []arg
	i := 0
	needValue := func(what string) (string, error) {
		i++
		if i >= len(rest) {
			return "", nil
		}
		if !rest[i].lit {
			return "", s.dynamic(rest[i], "the value of "+base+" "+what)
		}
		return rest[i].val, nil
	}
loop:
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			if !a.assign {
				return nil, s.dynamic(a, "an argument of "+base)
			}
			if !spec.permute {
				break loop // NAME=$x: an operand
			}
			operands = append(operands, a)
			continue
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break loop
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch {
			case contains(spec.long, name) && !hasVal:
				o["--"+name] = ""
			case contains(spec.longOptArg, name):
				o["--"+name] = val
			case contains(spec.longArg, name):
				if !hasVal {
					var err error
					if val, err = needValue(v); err != nil {
						return nil, err
					}
				}
				o["--"+name] = val
			default:
				return nil, s.unknown("cannot tell which command %s runs: unknown option %s", base, v)
			}
		case len(v) > 1 && v[0] == '-':
			if spec.numeric && isDigits(v[1:]) {
				continue
			}
		cluster:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.short, c) >= 0:
					o["-"+string(c)] = ""
				case strings.IndexByte(spec.shortOptArg, c) >= 0:
					o["-"+string(c)] = v[j+1:]
					break cluster
				case strings.IndexByte(spec.shortArg, c) >= 0:
					val := v[j+1:]
					if val == "" {
						var err error
						if val, err = needValue("-" + string(c)); err != nil {
							return nil, err
						}
					}
					o["-"+string(c)] = val
					break cluster
				default:
					return nil, s.unknown("cannot tell which command %s runs: unknown option -%c", base, c)
				}
			}
		default:
			if !spec.permute {
				break loop
			}
			operands = append(operands, a)
		}
	}
	return then(o, append(operands, rest[min(i, len(rest)):]...))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
