package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/tools"
)

// promptly is the failure guard for calls that must not block: a call
// that has not returned by then hangs.
const promptly = testwait.Step

// env is a working directory with the tools installed on an executor.
type env struct {
	t    testing.TB
	dir  string // the working directory
	ext  *tools.Extension
	exec *executor.Executor
}

func newEnv(t testing.TB, cfg tools.ExtensionConfig) *env {
	t.Helper()
	if cfg.WorkingDir == "" {
		cfg.WorkingDir = t.TempDir()
	}
	ext := tools.NewExtension(cfg)
	ex := executor.New(nil, executor.WithValidateArguments(true))
	if err := ex.Install(context.Background(), ext); err != nil {
		t.Fatalf("install tools: %v", err)
	}
	t.Cleanup(func() { ex.Close() })
	return &env{t: t, dir: cfg.WorkingDir, ext: ext, exec: ex}
}

// write creates files below the working directory.
func (e *env) write(files map[string]string) {
	e.t.Helper()
	writeTree(e.t, e.dir, files)
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(name)))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// call runs a tool through the pipeline with args given as a Go value.
func (e *env) call(name string, args any) *core.Result {
	e.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	res, _ := e.exec.InvokeTool(context.Background(), name, raw)
	return res
}

// ok runs a tool and fails the test unless it succeeds.
func (e *env) ok(name string, args any) string {
	e.t.Helper()
	res := e.call(name, args)
	if !res.OK() {
		e.t.Fatalf("%s %v: %v", name, args, res.Err)
	}
	return res.ForLLM
}

// fails runs a tool, fails the test unless it fails with kind, and returns
// the message.
func (e *env) fails(name string, args any, kind core.Kind, wantIn ...string) string {
	e.t.Helper()
	res := e.call(name, args)
	if res.OK() {
		e.t.Fatalf("%s %v succeeded with %q; want %s", name, args, res.ForLLM, kind)
	}
	if res.Kind() != kind {
		e.t.Fatalf("%s %v: kind %s (%v), want %s", name, args, res.Kind(), res.Err, kind)
	}
	msg := res.Err.Error()
	for _, w := range wantIn {
		if !strings.Contains(msg, w) {
			e.t.Errorf("%s %v: message %q does not contain %q", name, args, msg, w)
		}
	}
	return msg
}
