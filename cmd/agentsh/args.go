package main

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/wording"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// options are the parsed command line.
type options struct {
	command     string   // "", "run", "call", "explain", "tools", "test", "help", "version"
	positional  []string // the command's arguments
	code        string   // -c
	hasCode     bool
	loads       []string // --load, in order
	mode        string
	concurrency int // -1: not set
	jsonOut     bool
	timeout     time.Duration
	maxSteps    uint64
	interactive bool           // -i: REPL even when stdin is not a terminal
	lang        string         // --lang: of -c, piped stdin, the REPL and files without .star/.lua
	verbose     bool           // -v: agentsh test shows the output of passing tests
	runTests    *regexp.Regexp // -run: the tests agentsh test runs

	permissions string      // --permissions: "" (default), allow-all or deny-unlisted
	approve     string      // --approve: "" (by the terminal), never or always
	as          core.Origin // --as: who makes the call of call and explain
	hookScope   string      // --project (default) or --user: agentsh hook install and uninstall
	hook        hookOptions // agentsh hook install
	events      string      // --events FILE: mcp serve and hook append their events to FILE
	audit       auditOptions

	model      string              // --model PROVIDER:MODEL
	record     string              // --record FILE
	maxTurns   int                 // --max-turns N (0: the agent's default)
	modelWait  time.Duration       // --model-timeout: how long a model's server may be silent (0: the default)
	mcpServers []agentsh.MCPServer // --mcp NAME=COMMAND|URL

	workdir     string // --workdir: where the built-in tools work
	noBuiltins  bool
	grepBackend string
	globBackend string
	// --sandbox P: where every command runs ("" keeps the defaults: the
	// model's in workspace, a person's off); --sandbox-backend B;
	// --allow-host HOST (repeatable): the hosts sandboxed commands reach.
	sandbox        core.Sandbox
	sandboxBackend string
	allowHosts     []string
	// --fetch-allow-private: fetch and browser may reach loopback and
	// private network addresses.
	fetchPrivate bool

	mcp mcpOptions // agentsh mcp serve and agentsh mcp pins

	// Long and unattended runs.
	session       string        // --session NAME: save the conversation as session NAME (or resume it)
	resume        bool          // --resume [ID]: resume a saved session
	resumeID      string        // its ID; "" with resume: the latest session of any workdir
	continueLast  bool          // --continue: resume the latest session of this workdir
	maxToolCalls  int           // --max-tool-calls N (0: no bound)
	maxTokens     int           // --max-tokens N (0: no bound)
	maxCost       float64       // --max-cost USD (0: no bound)
	maxWall       time.Duration // --max-wall D (0: no bound)
	prices        string        // --prices FILE: the price table that overrides the built-in one
	contextWindow int           // --context-window N: the model's context window in tokens (0: known default)
	outputSchema  string        // --output-schema FILE: the final answer must be JSON valid against it
	printOnly     bool          // --print: only the final answer (or its data) on stdout, progress on stderr
	failOnDeny    bool          // --fail-on-deny: exit with exitDenied when a call was denied
	coverage      bool          // --coverage: policy diff counts the calls each hook decided

	// Durable runs (see durable.go).
	durable     bool                // --durable: run or ask as a durable run
	runID       string              // --run-id ID
	db          string              // --db URL (default: $AGENTSH_DB, else the state directory's file)
	approvalTTL time.Duration       // --approval-ttl D
	force       bool                // --force: resume a run whose script changed
	reason      string              // --reason R: agentsh approve and deny
	batchScript string              // --script FILE: agentsh batch
	batchOut    string              // --out FILE: agentsh batch
	workers     int                 // --workers N: agentsh batch
	all         bool                // --all: agentsh approvals lists decided ones too
	journal     *agentsh.RunJournal // set by the runner of a durable run, never by a flag
	task        any                 // the batch task of a durable run
	traces      *otlpenv.Traces     // what the OTEL_* variables ask for, built once per process (nil: none)
}

// isScript reports whether arg names a script to run: a file of a
// registered language's extension, or any existing file.
func isScriptFile(arg string) bool {
	if _, ok := script.LanguageOf(arg); ok {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && st.Mode().IsRegular()
}

// usageError is a command-line mistake: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// command is an entry of the command table.
type command struct {
	name   string
	noArgs bool // the command takes no arguments: extra words are a usage error
}

// commands is the one table of agentsh's commands, in the order the
// usage text and messages list them.
var commands = []command{
	{name: "run"}, {name: "call"}, {name: "explain"}, {name: "ask"},
	{name: "tools", noArgs: true}, {name: "sessions", noArgs: true},
	{name: "test"}, {name: "hook"}, {name: "mcp"}, {name: "audit"}, {name: "policy"},
	{name: "resume"}, {name: "runs", noArgs: true}, {name: "approvals", noArgs: true},
	{name: "approve"}, {name: "deny"}, {name: "batch"},
	{name: "help", noArgs: true}, {name: "version", noArgs: true},
}

// lookupCommand finds name in the command table.
func lookupCommand(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

func isCommand(name string) bool {
	_, ok := lookupCommand(name)
	return ok
}

// unknownCommand is the usage error for a word that is neither a command
// nor a script, naming the nearest command.
func unknownCommand(word string) error {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	if near, ok := wording.Nearest(word, names); ok {
		return usagef("unknown command %q: did you mean %q? want %s", word, near, wording.OrList(names))
	}
	return usagef("unknown command %q: want %s", word, wording.OrList(names))
}

// valueFlags are the flags that take a value (--flag V or --flag=V).
var valueFlags = map[string]func(o *options, v string) error{
	"c": func(o *options, v string) error {
		o.code, o.hasCode = v, true
		return nil
	},
	"load":   list(func(o *options) *[]string { return &o.loads }),
	"events": str(func(o *options) *string { return &o.events }),
	"mode": func(o *options, v string) error {
		if _, err := executor.ParseMode(v); err != nil {
			return usagef("--mode: %v", err)
		}
		o.mode = v
		return nil
	},
	"concurrency": func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usagef("--concurrency: got %q, want a positive number, or 0 for the default (%d)", v, executor.DefaultConcurrency)
		}
		o.concurrency = n
		return nil
	},
	"timeout": duration("--timeout", "30s or 5m", func(o *options, d time.Duration) { o.timeout = d }),
	"workdir": str(func(o *options) *string { return &o.workdir }),
	// Checked by agentsh.New, as are --sandbox-backend and --allow-host.
	"grep-backend": str(func(o *options) *string { return &o.grepBackend }),
	"glob-backend": str(func(o *options) *string { return &o.globBackend }),
	"sandbox": func(o *options, v string) error {
		p, err := core.ParseSandbox(v)
		if err != nil {
			return usagef("--sandbox: %v", err)
		}
		o.sandbox = p
		return nil
	},
	"sandbox-backend": str(func(o *options) *string { return &o.sandboxBackend }),
	"allow-host":      list(func(o *options) *[]string { return &o.allowHosts }),
	"model":           str(func(o *options) *string { return &o.model }),
	"record":          str(func(o *options) *string { return &o.record }),
	"max-turns":       positiveInt("--max-turns", func(o *options, n int) { o.maxTurns = n }),
	"model-timeout":   duration("--model-timeout", "30s or 20m", func(o *options, d time.Duration) { o.modelWait = d }),
	"mcp": func(o *options, v string) error {
		s, err := parseMCPFlag(v)
		if err != nil {
			return err
		}
		o.mcpServers = append(o.mcpServers, s)
		return nil
	},
	"lang": func(o *options, v string) error {
		l, ok := script.LookupLanguage(v)
		if !ok {
			return usagef("--lang: got %q, want star or lua", v)
		}
		o.lang = l.Name
		return nil
	},
	"run": func(o *options, v string) error {
		re, err := regexp.Compile(v)
		if err != nil {
			return usagef("-run: got %q, want a regular expression that matches test names: %v", v, err)
		}
		o.runTests = re
		return nil
	},
	"permissions": func(o *options, v string) error {
		if _, err := executor.ParsePermissions(v); err != nil {
			return usagef("--permissions: got %q, want default, allow-all or deny-unlisted", v)
		}
		o.permissions = v
		return nil
	},
	"approve": func(o *options, v string) error {
		if v != approveNever && v != approveAlways && v != approveDefer {
			return usagef("--approve: got %q, want never, always or defer (with --durable)", v)
		}
		o.approve = v
		return nil
	},
	"as": func(o *options, v string) error {
		origin, err := core.ParseOrigin(v)
		if err != nil {
			return usagef("--as: got %q, want person, model, mcp or hook", v)
		}
		o.as = origin
		return nil
	},
	"session": func(o *options, v string) error {
		if err := agentsh.CheckSessionID(v); err != nil {
			return usagef("--session: %v", err)
		}
		o.session = v
		return nil
	},
	"max-tool-calls": positiveInt("--max-tool-calls", func(o *options, n int) { o.maxToolCalls = n }),
	"max-tokens":     positiveInt("--max-tokens", func(o *options, n int) { o.maxTokens = n }),
	"max-cost": func(o *options, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || f > 1e9 {
			return usagef("--max-cost: got %q, want an amount in US dollars such as 0.50", v)
		}
		o.maxCost = f
		return nil
	},
	"max-wall":       duration("--max-wall", "10m or 1h", func(o *options, d time.Duration) { o.maxWall = d }),
	"prices":         str(func(o *options) *string { return &o.prices }),
	"context-window": positiveInt("--context-window", func(o *options, n int) { o.contextWindow = n }),
	"output-schema":  str(func(o *options) *string { return &o.outputSchema }),
	"run-id":         str(func(o *options) *string { return &o.runID }),
	"db":             str(func(o *options) *string { return &o.db }),
	"approval-ttl": func(o *options, v string) error {
		// Approvals expire in whole seconds: a shorter or fractional
		// value would silently become another expiry.
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d%time.Second != 0 {
			return usagef("--approval-ttl: got %q, want whole seconds such as 90s, 30m or 24h", v)
		}
		o.approvalTTL = d
		return nil
	},
	"reason": str(func(o *options) *string { return &o.reason }),
	"script": str(func(o *options) *string { return &o.batchScript }),
	"out":    str(func(o *options) *string { return &o.batchOut }),
	"workers": func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usagef("--workers: got %q, want how many tasks this process runs at once, or 0 to only enqueue and wait", v)
		}
		o.workers = n
		return nil
	},
	"max-steps": positiveInt("--max-steps", func(o *options, n int) { o.maxSteps = uint64(n) }),
}

// str is a flag that sets a string field; list, one that adds to a list.
func str(field func(o *options) *string) func(o *options, v string) error {
	return func(o *options, v string) error { *field(o) = v; return nil }
}

func list(field func(o *options) *[]string) func(o *options, v string) error {
	return func(o *options, v string) error { *field(o) = append(*field(o), v); return nil }
}

// duration parses a flag whose value is a positive duration.
func duration(flag, examples string, set func(o *options, d time.Duration)) func(o *options, v string) error {
	return func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("%s: got %q, want a duration such as %s", flag, v, examples)
		}
		set(o, d)
		return nil
	}
}

// positiveInt parses a flag whose value is a count of 1 or more.
func positiveInt(flag string, set func(o *options, n int)) func(o *options, v string) error {
	return func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usagef("%s: got %q, want a positive number", flag, v)
		}
		set(o, n)
		return nil
	}
}

func init() {
	for name, set := range mcpFlags {
		valueFlags[name] = set
	}
}

// parseArgs reads flags anywhere on the line, except after the script of
// "run", whose remaining arguments belong to the script.
func parseArgs(args []string) (*options, error) {
	o := &options{concurrency: -1, workers: -1, lang: agentsh.DefaultLang}
	helpFlag := false // --help, -h or --version: whatever else the line says
	for i := 0; i < len(args); i++ {
		a := args[i]
		if o.command == "run" && len(o.positional) > 0 {
			o.positional = append(o.positional, args[i:]...)
			break
		}
		if a == "--" {
			o.positional = append(o.positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if o.command == "" && len(o.positional) == 0 && !o.hasCode {
				if !isCommand(a) {
					if !isScriptFile(a) {
						return nil, unknownCommand(a)
					}
					// agentsh FILE is agentsh run FILE, so that a script
					// can start with #!/usr/bin/env agentsh.
					o.command = "run"
				} else {
					o.command = a
					continue
				}
			}
			o.positional = append(o.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "resume" {
			// --resume [ID]: the next word is the ID unless it is a flag,
			// a command or a script.
			o.resume = true
			switch {
			case hasValue:
				o.resumeID = value
			case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !isCommand(args[i+1]) && !isScriptFile(args[i+1]):
				i++
				o.resumeID = args[i]
			}
			if o.resumeID != "" {
				if err := agentsh.CheckSessionID(o.resumeID); err != nil {
					return nil, usagef("--resume: %v", err)
				}
			}
			continue
		}
		if set, ok := valueFlags[name]; ok {
			if !hasValue {
				if i+1 >= len(args) {
					return nil, usagef("flag %s needs a value", a)
				}
				i++
				value = args[i]
			}
			if err := set(o, value); err != nil {
				return nil, err
			}
			continue
		}
		switch name {
		case "json":
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, usagef("--json: got %q, want true or false", value)
				}
				o.jsonOut = b
			} else {
				o.jsonOut = true
			}
		case "i", "interactive":
			o.interactive = true
		case "v", "verbose":
			o.verbose = true
		case "no-builtins":
			o.noBuiltins = true
		case "fetch-allow-private":
			o.fetchPrivate = true
		case "continue":
			o.continueLast = true
		case "print", "p":
			o.printOnly = true
		case "durable":
			o.durable = true
		case "force":
			o.force = true
		case "all":
			o.all = true
		case "fail-on-deny":
			o.failOnDeny = true
		case "coverage":
			o.coverage = true
		case "project", "user":
			o.hookScope = name
		case "allow-temp-exe":
			o.hook.allowTempExe = true
		case "no-after-hooks":
			o.hook.noAfter = true
		case "h", "help":
			o.command, helpFlag = "help", true
		case "version":
			o.command, helpFlag = "version", true
		default:
			return nil, usagef("unknown flag %s", a)
		}
	}
	if c, _ := lookupCommand(o.command); c.noArgs && len(o.positional) > 0 && !helpFlag {
		return nil, usagef("%s takes no arguments; got %s", o.command, quoteAll(o.positional))
	}
	if o.hasCode && o.command != "" {
		return nil, usagef("-c runs a snippet and cannot be combined with %q", o.command)
	}
	if o.as != core.OriginUnset && o.command != "call" && o.command != "explain" {
		return nil, usagef("--as chooses who makes the call of agentsh call and agentsh explain: agentsh explain --as model TOOL [JSON]")
	}
	if err := checkHookFlags(o); err != nil {
		return nil, err
	}
	if err := checkAuditFlags(o); err != nil {
		return nil, err
	}
	if o.command == "hook" && o.noBuiltins && (len(o.positional) == 0 || o.positional[0] != "install" && o.positional[0] != "uninstall") {
		return nil, usagef("agentsh hook decides the agent's calls as agentsh's built-in tools, which --no-builtins would leave undeclared; drop --no-builtins")
	}
	if o.command == "hook" && o.jsonOut {
		return nil, usagef("agentsh hook answers in the agent's protocol; --json does not apply")
	}
	if boolCount(o.session != "", o.resume, o.continueLast) > 1 {
		return nil, usagef("--session, --resume and --continue each choose the session; give one of them: --session NAME (new, or saved under that name), --resume [ID] or --continue")
	}
	if o.command == "ask" && len(o.positional) == 0 {
		return nil, usagef("ask needs a prompt: agentsh ask \"which files mention the config?\" (or - to read it from stdin)")
	}
	if err := checkHeadlessFlags(o); err != nil {
		return nil, err
	}
	if err := o.applyMCPReadOnly(); err != nil {
		return nil, err
	}
	if o.runTests != nil && o.command != "test" {
		return nil, usagef("-run selects the tests of agentsh test: agentsh test -run REGEXP [PATHS...]")
	}
	return o, nil
}

// quoteAll quotes each word, separated by spaces.
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, " ")
}

// boolCount counts the true values.
func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// usage is the help text, with the search backends that are registered.
func usage() string {
	grep, glob := agentsh.SearchBackends()
	return strings.NewReplacer("{grep}", grep, "{glob}", glob).Replace(usageText)
}

// usageText is the help text; {grep} and {glob} are the search backends.
//
//go:embed usage.txt
var usageText string
