package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/tools"
)

// The built-in tools are an extension installed on an executor. They work
// in WorkingDir and may not leave it; every call goes through the pipeline,
// so hooks and middleware apply to them like to any tool. Paths in their
// output are relative to WorkingDir and sorted, so the output is the same
// on every run.
func ExampleNewExtension() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "agentsh-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ex := executor.New(core.NewRegistry())
	defer ex.Close()
	if err := ex.Install(ctx, tools.NewExtension(tools.ExtensionConfig{WorkingDir: dir})); err != nil {
		fmt.Println(err)
		return
	}

	call := func(name, args string) {
		res, err := ex.InvokeTool(ctx, name, json.RawMessage(args))
		if err != nil {
			// The temporary directory's name differs from run to run.
			fmt.Printf("%s: error (%s): %s\n", name, res.Kind(), strings.ReplaceAll(err.Error(), dir, "$WORKDIR"))
			return
		}
		fmt.Printf("%s:\n%s\n", name, strings.TrimSuffix(res.ForLLM, "\n"))
	}
	call("write_file", `{"path": "src/main.go", "content": "package main\n\n// TODO: greet\nfunc main() {}\n"}`)
	call("write_file", `{"path": "notes.txt", "content": "TODO: tests\n"}`)
	call("list_dir", `{}`)
	call("read_file", `{"path": "src/main.go", "offset": 3, "limit": 2}`)
	call("grep", `{"pattern": "TODO", "output_mode": "content"}`)
	call("read_file", `{"path": "../secret.txt"}`)
	// Output:
	// write_file:
	// wrote 44 bytes to src/main.go
	// write_file:
	// wrote 12 bytes to notes.txt
	// list_dir:
	// notes.txt
	// src/
	// read_file:
	//      3	// TODO: greet
	//      4	func main() {}
	// grep:
	// notes.txt:1:TODO: tests
	// src/main.go:3:// TODO: greet
	// read_file: error (invalid_arguments): read_file: path "../secret.txt" is outside the working directory $WORKDIR; use a path inside it
}

// Policies apply to the built-in tools as to any other. Each built-in
// declares what it does with its paths, so a before hook reads the call's
// Effects, with paths made canonical (relative to the working directory and
// clean) before any hook runs: "src/../README.md" reaches the hook as
// "README.md", whatever tool writes it.
func ExampleExtension_policy() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "agentsh-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ex := executor.New(core.NewRegistry())
	defer ex.Close()
	ex.Install(ctx, tools.NewExtension(tools.ExtensionConfig{WorkingDir: dir}))
	ex.AddBefore(core.BeforeHook{
		Name: "writes_in_src",
		Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			for _, p := range call.Effects.Writes {
				if ok, _ := path.Match("src/*", p); !ok {
					return nil, core.Deny("writes outside src/: " + p)
				}
			}
			return nil, nil
		},
	})

	for _, p := range []string{"src/a.txt", "src/../README.md"} {
		res, err := ex.InvokeTool(ctx, "write_file", json.RawMessage(`{"path": "`+p+`", "content": "hi\n"}`))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.ForLLM)
	}
	// Output:
	// wrote 3 bytes to src/a.txt
	// rejected by "writes_in_src": writes outside src/: README.md
}
