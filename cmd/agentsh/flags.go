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
}

// flagHint is what the CLI adds to an option's error: the flags that
// get past it.
var flagHint = map[string]string{
	"WithSandboxBackend": "; choose --sandbox-backend auto, or --sandbox off",
}

// flagError reports an *agentsh.OptionError by its flag, as a usage
// error (exit 2); other errors are returned as they are.
func flagError(err error) error {
	var oe *agentsh.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	flag, ok := flagOf[oe.Option]
	if !ok {
		return err
	}
	if oe.Value != "" {
		flag += " " + oe.Value
	}
	return &usageError{fmt.Sprintf("%s: %v%s", flag, oe.Err, flagHint[oe.Option])}
}
