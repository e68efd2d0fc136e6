package lua

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
)

// catastrophic backtracks for hours before it fails: every way to split
// 40 characters into eight parts.
const catastrophic = `string.rep("a", 40), "(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b"`

// TestPatternStopsAtTimeout: a tool stuck in a pathological pattern, in
// any of the string functions, ends with its deadline; it once ran for
// hours.
func TestPatternStopsAtTimeout(t *testing.T) {
	e := newEnv(t, Options{})
	calls := map[string]string{
		"find":      `string.find(` + catastrophic + `)`,
		"match":     `(` + catastrophic[:len(`string.rep("a", 40)`)] + `):match("(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b")`,
		"gsub":      `string.gsub(` + catastrophic + `, "x")`,
		"gmatch":    `(function() for x in string.gmatch(` + catastrophic + `) do end end)()`,
		"coroutine": `coroutine.wrap(function() return string.find(` + catastrophic + `) end)()`,
	}
	for name, call := range calls {
		e.run(fmt.Sprintf(`tool{name = %q, fn = function() %s return "done" end}`, name, call))
	}
	e.run(`middleware(timeout("100ms"))`)
	for name := range calls {
		res := e.invokeBounded(name, `{}`)
		wantKind(t, res, core.KindTimeout)
	}
}

// TestPatternStopsWithContext: top-level code and run_code's sandbox stop
// in a pathological pattern when their context ends.
func TestPatternStopsWithContext(t *testing.T) {
	e := newEnv(t, Options{})
	for name, run := range map[string]func(ctx context.Context) error{
		"script": func(ctx context.Context) error {
			_, err := e.in.ExecSource(ctx, "stuck.lua", []byte(`string.find(`+catastrophic+`)`))
			return err
		},
		"sandbox": func(ctx context.Context) error {
			_, err := RunSandboxed(ctx, `return string.find(`+catastrophic+`)`, 0)
			return err
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- run(ctx) }()
		time.Sleep(20 * time.Millisecond)
		cancel()
		cancelled := time.Now()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) && (err == nil || !strings.Contains(err.Error(), "canceled")) {
				t.Errorf("%s: %v, want it canceled", name, err)
			}
		case <-time.After(watchdog):
			t.Fatalf("%s: still running %v after its context ended", name, time.Since(cancelled))
		}
	}
}

// TestGsubGrowth: gsub, like re.sub, refuses to grow its subject without
// bound.
func TestGsubGrowth(t *testing.T) {
	defer func(n int) { maxGrowth = n }(maxGrowth)
	maxGrowth = 1000
	e := newEnv(t, Options{})
	for _, repl := range []string{`"yyy"`, `function() return "yyy" end`, `{a = "yyy"}`} {
		err := e.runErr(`string.gsub(string.rep("a", 600), "a", ` + repl + `)`)
		wantContains(t, err.Error(), "string.gsub: the result would be more than 1000 bytes longer than the input (600 bytes)")
	}
	e.run(`local s, n = string.gsub(string.rep("a", 600), "", "y") print(#s, n)`)
	wantLines(t, e.lines(), "1201\t601")
}
