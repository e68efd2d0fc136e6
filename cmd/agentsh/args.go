package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/wording"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/mcp"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/search"
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

	model      string             // --model PROVIDER:MODEL
	record     string             // --record FILE
	maxTurns   int                // --max-turns N (0: the agent's default)
	modelWait  time.Duration      // --model-timeout: how long a model's server may be silent (0: the default)
	mcpServers []mcp.ServerConfig // --mcp NAME=COMMAND|URL

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
	{name: "test"}, {name: "hook"}, {name: "mcp"},
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
	"load": func(o *options, v string) error {
		o.loads = append(o.loads, v)
		return nil
	},
	"events": func(o *options, v string) error {
		o.events = v
		return nil
	},
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
	"timeout": func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("--timeout: got %q, want a duration such as 30s or 5m", v)
		}
		o.timeout = d
		return nil
	},
	"workdir": func(o *options, v string) error {
		o.workdir = v
		return nil
	},
	"grep-backend": func(o *options, v string) error {
		if _, err := search.LookupGrep(v); err != nil {
			return usagef("--grep-backend: %v", err)
		}
		o.grepBackend = v
		return nil
	},
	"glob-backend": func(o *options, v string) error {
		if _, err := search.LookupGlob(v); err != nil {
			return usagef("--glob-backend: %v", err)
		}
		o.globBackend = v
		return nil
	},
	"sandbox": func(o *options, v string) error {
		p, err := core.ParseSandbox(v)
		if err != nil {
			return usagef("--sandbox: %v", err)
		}
		o.sandbox = p
		return nil
	},
	"sandbox-backend": func(o *options, v string) error {
		if !slices.Contains(process.Backends, v) {
			return usagef("--sandbox-backend: got %q, want auto, bwrap or landlock", v)
		}
		o.sandboxBackend = v
		return nil
	},
	"allow-host": func(o *options, v string) error {
		if err := process.CheckHost(v); err != nil {
			return usagef("--allow-host: %v", err)
		}
		o.allowHosts = append(o.allowHosts, v)
		return nil
	},
	"model": func(o *options, v string) error {
		o.model = v
		return nil
	},
	"record": func(o *options, v string) error {
		o.record = v
		return nil
	},
	"max-turns": func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usagef("--max-turns: got %q, want a positive number", v)
		}
		o.maxTurns = n
		return nil
	},
	"model-timeout": func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("--model-timeout: got %q, want a duration such as 30s or 20m", v)
		}
		o.modelWait = d
		return nil
	},
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
			return usagef("--permissions: got %q, want %s", v, wording.OrList(permissionChoices))
		}
		o.permissions = v
		return nil
	},
	"approve": func(o *options, v string) error {
		if v != approveNever && v != approveAlways {
			return usagef("--approve: got %q, want never or always", v)
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
		if err := session.CheckID(v); err != nil {
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
	"max-wall": func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("--max-wall: got %q, want a duration such as 10m or 1h", v)
		}
		o.maxWall = d
		return nil
	},
	"prices": func(o *options, v string) error {
		o.prices = v
		return nil
	},
	"context-window": positiveInt("--context-window", func(o *options, n int) { o.contextWindow = n }),
	"output-schema": func(o *options, v string) error {
		o.outputSchema = v
		return nil
	},
	"max-steps": func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return usagef("--max-steps: got %q, want a positive number", v)
		}
		o.maxSteps = n
		return nil
	},
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
	o := &options{concurrency: -1, lang: defaultLang}
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
				if err := session.CheckID(o.resumeID); err != nil {
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
		case "fail-on-deny":
			o.failOnDeny = true
		case "project", "user":
			o.hookScope = name
		case "allow-temp-exe":
			o.hook.allowTempExe = true
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
	return strings.NewReplacer("{grep}", wording.OrList(search.GrepBackends()), "{glob}", wording.OrList(search.GlobBackends())).Replace(usageText)
}

const usageText = `agentsh: an embedded scripting agent shell

Usage:
  agentsh [flags]                         REPL (piped stdin runs as a script)
  agentsh [run] FILE [ARGS...]            run a .star or .lua script; ARGS are in argv
                                          (Lua: arg[1], ...); #! lines are allowed
  agentsh -c CODE [ARGS...]               run a snippet (a sole expression is printed)
  agentsh call TOOL [JSON] [--load F]     one call through the pipeline
  agentsh explain TOOL [JSON] [--load F]  what the policies would decide for one call,
                                          without running anything (JSON "-" reads stdin;
                                          --json: the whole ruling); exit 0 when the call
                                          would run, 1 when it would not (an ask counts as
                                          not running: explain asks nobody), 2 on usage
  agentsh ask PROMPT                      ask the model once, with the tools and the
                                          --load files ("-" reads the prompt from stdin);
                                          the answer on stdout (--print: it alone)
  agentsh tools [--json]                  list the registered tools
  agentsh sessions [--json]               list the saved sessions of the workdir, the
                                          latest first (ids for --resume)
  agentsh hook AGENT [--load F]           one hook event of claude-code, gemini or codex
                                          on stdin, answered in that agent's protocol;
                                          any failure blocks (exit 2, reason on stderr);
                                          --events FILE: append the decision to FILE
  agentsh hook install AGENT [--project|--user] [--load F]
                                          write agentsh's hook entries (with --load,
                                          --permissions, --max-steps, --timeout, --events)
                                          into the agent's project settings (default) or
                                          the user's, replacing earlier ones; they block
                                          the call if agentsh cannot run; see docs/hooks.md
  agentsh hook uninstall AGENT [--project|--user]
                                          take agentsh's hook entries out again
  agentsh mcp serve [--listen ADDR]       serve the tools as an MCP server (stdio, or
                                          streamable HTTP on ADDR; see docs/mcp.md)
  agentsh mcp pins [NAME...] [--accept NAME]
                                          the pinned upstream tools with their text,
                                          and a diff of each changed one; --accept:
                                          make the changed definition the pinned one
  agentsh test [-v] [-run RE] [PATHS...]  run *_test.star and *_test.lua files
                                          (default: . recursively, without testdata);
                                          -run: only the tests whose names match RE;
                                          --load files run on every test's host
  agentsh help                            this text

Flags:
  --workdir DIR       where the built-in tools work (default: the current directory)
  --no-builtins       do not register the built-in tools
  --grep-backend B    {grep} (default native)
  --glob-backend B    {glob} (default native)
  --sandbox P         where bash and run_code run commands: read-only, workspace
                      or off (default: the model's in workspace, yours off);
                      see docs/safety.md
  --sandbox-backend B auto (default: bubblewrap, else Landlock), bwrap or landlock
  --allow-host HOST   a host sandboxed commands may reach over HTTPS, through
                      agentsh's proxy (repeatable; default: no network)
  --fetch-allow-private  let fetch and browser reach loopback and private
                      network addresses (never link-local or cloud metadata)
  --model SPEC        the model of ask() and :ask: openai:MODEL, anthropic:MODEL,
                      ollama:MODEL or replay:FILE (scripts may set model(fn))
  --record FILE       write every model request and response to FILE (JSON lines)
                      for --model replay:FILE
  --max-turns N       bound the model turns of one ask (default 20)
  --model-timeout D   how long a model's server may send nothing before the
                      request fails (default 10m; a response may also take
                      at most 1h, or D when longer)
  --session NAME      save the conversation as session NAME, or go on with it
  --resume [ID]       go on with a saved session (without ID: the latest one)
  --continue          go on with the latest session of this workdir
  --max-tool-calls N  budget: at most N tool calls in the run (subagents' count)
  --max-tokens N      budget: at most N tokens (input, output and cache)
  --max-cost USD      budget: at most USD dollars by the price table
  --max-wall D        budget: at most D of wall time from the first model
                      request or tool call, e.g. 10m (in the REPL, the time
                      at the prompt counts too)
                      (a model or tool call that would exceed a budget is
                      not made: the run stops with exit code 4)
  --prices FILE       a JSON price table over the built-in one, for cost
  --context-window N  the model's context window in tokens (default: known per
                      model); the conversation is compacted before it fills
  --output-schema FILE  agentsh ask: the final answer must be a JSON object valid
                      against FILE's JSON Schema; the model is told what is wrong
                      and tries again (3 answers in all); in scripts give
                      ask(prompt, schema = {...}) instead
  --print, -p         ask: only the final answer (with --output-schema its data, as
                      JSON) on stdout; run, -c: the script's prints on stdout; the
                      agent's progress (text, tool output, refusals) on stderr
  --fail-on-deny      run, -c, ask: exit 6 when a call of the model was denied
  --mcp NAME=CMD      connect an MCP server (a command, or an http URL); its tools
                      register as mcp__NAME__TOOL (repeatable); a tool whose
                      definition changed since it was pinned is held back
  --mcp-read-only NAME=TOOL[,TOOL...]
                      declare tools of --mcp NAME read-only (repeatable); a
                      server's own readOnlyHint declares nothing
  --listen ADDR       mcp serve: streamable HTTP on ADDR (loopback unless --token-file)
  --token-file FILE   mcp serve: clients must send FILE's token as a bearer token
  --events FILE       mcp serve: write the --json events to FILE (default: stderr);
                      hook: append each decision to FILE (docs/events.md)
  --exe PATH          hook install: the agentsh the entries run (default: this one)
  --allow-temp-exe    hook install: accept an agentsh in the Go build cache or a temp
                      directory (go run, go test), which the entries stop finding
                      when it is cleaned up; go install ./cmd/agentsh instead
  --pins FILE         the pins of upstream tool definitions, for --mcp and
                      mcp_server(...) (default $XDG_STATE_HOME/agentsh/mcp-pins.json)
  --lang LANG         star (default) or lua: the language of -c, piped stdin,
                      the REPL and files that end in neither .star nor .lua
  --load FILE         run a policy or tool file (.star or .lua) first (repeatable)
  --permissions P     what happens to a call no policy decides: default (your calls
                      run; the model's run for read-only tools and ask otherwise),
                      allow-all (every call runs, the model's too; said at start) or
                      deny-unlisted (only calls a policy allows run)
  --approve A         who answers an ask when nobody is prompted: never (the default
                      without the REPL on a terminal: the call is rejected) or always;
                      a script's on("approve", fn) replaces it. The REPL on a terminal
                      asks you: y once, a always for that tool, n no (with a reason)
  --as WHO            call and explain: person (default), model, mcp or hook, whose defaults apply
  --mode MODE         execution mode of invoke_all: serial, parallel or mixed
  --concurrency N     bound parallel calls (default and 0: 64)
  --json              JSONL events on stdout, ending with a result event (call: the
                      whole result as JSON); see docs/events.md
  --timeout DURATION  bound the whole run, e.g. 30s
  --max-steps N       step budget per run and per call
  -i                  interactive REPL even when stdin is not a terminal

Exit codes: 0 ok, 1 script error, failed call or a call explain would not run,
2 usage, 3 an ask stopped at its turn limit, 4 a budget was exhausted, 5 a
replay left its recording, 6 a call was denied (with --fail-on-deny),
128+N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP; agentsh
exits within 2 s); a script's exit(code) exits with code. For run, -c,
piped stdin and ask every top-level ask() counts, handled by the script or
not; the first that applies wins: 2, 128+N, exit(code), 5, 1 (an error, or
an answer that never matched its schema), 4, 3, 6, 0.
REPL commands: :help [NAME], :tools, :load FILE, :star, :lua, :ask PROMPT, :model [SPEC],
:new, :sessions, :resume ID, :compact, :quit (exit(code), quit() and Ctrl-D also exit).
`
