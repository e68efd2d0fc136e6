package script_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	_ "github.com/agentsh/agentsh/script/lua"      // registers "lua" (.lua)
	_ "github.com/agentsh/agentsh/script/starlark" // registers "starlark" (.star)
)

// A program runs script files by their extension: the bindings register
// themselves with the language registry when they are imported. Scripts of
// both languages on one Host share its tools and hooks, so here a Lua
// policy guards a tool written in Starlark.
func ExampleLanguageOf() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "agentsh-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "tools.star"), []byte(`
tool(name = "greet", fn = lambda args: "Hello, %s!" % args["name"])
`), 0o644)
	os.WriteFile(filepath.Join(dir, "policy.lua"), []byte(`
before(function(call)
  if call.args.name == "Mallory" then return deny("not Mallory") end
end, {tools = {"greet"}, name = "no_mallory"})
`), 0o644)

	ex := executor.New(core.NewRegistry())
	defer ex.Close()
	host := script.NewHost(ex, os.Stdout)
	for _, file := range []string{"tools.star", "policy.lua"} {
		lang, ok := script.LanguageOf(file)
		if !ok {
			fmt.Println("no script language reads", file)
			return
		}
		in := lang.New(host, script.Options{})
		defer in.Close()
		if err := in.LoadFile(ctx, filepath.Join(dir, file)); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("loaded", file, "as", lang.Name)
	}

	for _, name := range []string{"Ada", "Mallory"} {
		res, err := ex.InvokeTool(ctx, "greet", json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(res.ForLLM)
	}
	// Output:
	// loaded tools.star as starlark
	// loaded policy.lua as lua
	// Hello, Ada!
	// error: rejected by "no_mallory": not Mallory
}
