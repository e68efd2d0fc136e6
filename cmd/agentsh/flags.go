package main

import (
	"errors"
	"fmt"

	"github.com/agentsh/agentsh"
)

// flagOf is the flag that sets each option of package agentsh the CLI
// gives: an *agentsh.OptionError names the option, and the CLI reports
// it as a mistake on the command line, in its own terms.
var flagOf = map[string]string{
	"WithWorkDir":         "--workdir",
	"WithGrepBackend":     "--grep-backend",
	"WithGlobBackend":     "--glob-backend",
	"WithSandbox":         "--sandbox",
	"WithSandboxBackend":  "--sandbox-backend",
	"WithAllowHosts":      "--allow-host",
	"WithModel":           "--model",
	"WithModelTimeout":    "--model-timeout",
	"WithPricesFile":      "--prices",
	"WithMCPServers":      "--mcp",
	"WithLang":            "--lang",
	"ServeOptions.Listen": "--listen",
	"ServeOptions.Token":  "--token-file",
	"HookInstall.Exe":     "--exe",
	"WithRecordFile":      "--record",
	"HookInstall.Scripts": "--load",
}

// flagHint is what the CLI adds to the error of an option's value that
// cannot be used here (a backend that cannot confine): the flags that
// get past it.
var flagHint = map[string]string{
	"WithSandboxBackend": "; choose --sandbox-backend auto, or --sandbox off",
	"WithRecordFile":     " with --record FILE",
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
	flag, ok := flagOf[oe.Option]
	if !ok {
		return "", false
	}
	hint := ""
	if oe.Value != "" {
		flag += " " + oe.Value
		hint = flagHint[oe.Option]
	}
	text := fmt.Sprintf("%s: %v%s", flag, oe.Err, hint)
	if fix := flagHintOf(oe.Err); fix != "" {
		text += "; on the command line, " + fix
	}
	return text, true
}
