package tools_test

import (
	"context"

	"github.com/agentsh/agentsh/script/lua"
	"github.com/agentsh/agentsh/script/starlark"
)

// The interpreted runners, as cmd/agentsh wires them.
func starlarkRunner(ctx context.Context, code string) (string, error) {
	return starlark.RunSandboxed(ctx, code, 0)
}

var luaRunner = lua.RunSandboxed
