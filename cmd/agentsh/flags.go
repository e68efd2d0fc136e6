package main

import (
	"errors"
	"fmt"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
)

// The library packages say what is wrong, and what fixes it, in their own
// terms: an *agentsh.OptionError names the option whose value is wrong,
// agentsh.FixedBy the setting that fixes an error, both by the same
// names. This is the one place the CLI turns those names into its flags.

// setting is what the CLI says for one setting of package agentsh.
type setting struct {
	flag  string // begins an error about the value given to it
	after string // follows an error about a value that cannot be used here
	fix   string // follows an error the setting fixes
}

var settings = map[string]setting{
	"WithWorkDir":           {flag: "--workdir"},
	"WithGrepBackend":       {flag: "--grep-backend"},
	"WithGlobBackend":       {flag: "--glob-backend"},
	"WithLang":              {flag: "--lang"},
	"WithAllowHosts":        {flag: "--allow-host"},
	"WithMCPServers":        {flag: "--mcp"},
	"WithSandbox":           {flag: "--sandbox", fix: "--sandbox off runs it unconfined"},
	"WithSandboxBackend":    {flag: "--sandbox-backend", after: "; choose --sandbox-backend auto, or --sandbox off"},
	"WithModel":             {flag: "--model", fix: "--model PROVIDER:MODEL chooses the model"},
	"WithModelTimeout":      {flag: "--model-timeout", fix: "--model-timeout D gives a slow server longer"},
	"WithAudit":             {flag: "--audit"},
	"VerifyAuditFile.Head":  {flag: "--head"},
	"WithRecordFile":        {flag: "--record", after: " with --record FILE", fix: "--record FILE records the run again"},
	"WithPricesFile":        {flag: "--prices", fix: "--prices FILE adds a price, or drop --max-cost"},
	"WithPinsFile":          {flag: "--pins", fix: "--pins FILE uses another pins file"},
	"WithMaxSteps":          {flag: "--max-steps", fix: "--max-steps N raises it"},
	"WithBudget.ToolCalls":  {fix: "--max-tool-calls N raises it"},
	"WithBudget.Tokens":     {fix: "--max-tokens N raises it"},
	"WithBudget.Cost":       {fix: "--max-cost USD raises it"},
	"WithBudget.Wall":       {fix: "--max-wall DURATION raises it"},
	"SessionStart.Name":     {fix: "--session OTHER-NAME, or no --resume or --continue, starts a new session"},
	"SessionStart.ResumeID": {fix: "--resume ID resumes it"},
	"ServeOptions.Listen":   {flag: "--listen"},
	"ServeOptions.Token":    {flag: "--token-file", fix: "--token-file FILE makes clients send its token"},
	"HookInstall.Exe":       {flag: "--exe", fix: "--exe PATH names a lasting one (--allow-temp-exe installs this one anyway)"},
	"HookInstall.Scripts":   {flag: "--load"},
	"HookInstall.User":      {fix: "--project installs into the project's settings"},
}

// flagError reports an *agentsh.OptionError by its flag, as a usage
// error (exit 2); other errors are returned as they are.
func flagError(err error) error {
	if text, ok := flagText(err); ok {
		return &usageError{text}
	}
	return err
}

// flagText says an *agentsh.OptionError in the command line's terms: the
// flag, the value given, what is wrong with it, and the flags that get
// past it.
func flagText(err error) (string, bool) {
	var oe *agentsh.OptionError
	if !errors.As(err, &oe) {
		return "", false
	}
	s := settings[oe.Option]
	if s.flag == "" {
		return "", false
	}
	flag, after := s.flag, ""
	if oe.Value != "" {
		flag, after = flag+" "+oe.Value, s.after
	}
	return fmt.Sprintf("%s: %v%s%s", flag, oe.Err, after, fixHint(oe.Err)), true
}

// fixHint is "; on the command line, " and the flag that fixes err, or "".
func fixHint(err error) string {
	if fix := settings[agentsh.FixedBy(err)].fix; fix != "" {
		return "; on the command line, " + fix
	}
	return ""
}

// withFlagHint returns err with the flag that fixes it at the end of its
// message ("...; on the command line, --model PROVIDER:MODEL chooses the
// model"); errors.Is and errors.As see what they saw in err. An error
// that holds a script error is that *script.Error, with its position and
// backtrace, for printing.
func withFlagHint(err error) error {
	hint := fixHint(err)
	if hint == "" {
		return err
	}
	var se *script.Error
	if errors.As(err, &se) {
		c := *se
		c.Msg += hint
		return &c
	}
	return &hinted{err: err, hint: hint}
}

// hinted is an error with a hint after its message.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + h.hint }
func (h *hinted) Unwrap() error { return h.err }
