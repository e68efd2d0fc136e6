package testrunner

// The languages the tests run, registered by their bindings.
import (
	_ "github.com/agentsh/agentsh/script/lua"
	_ "github.com/agentsh/agentsh/script/starlark"
)
