package starlark

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestConcurrentStarlarkTool calls one Starlark tool from many goroutines
// at once; run with -race. Every result must be its own call's.
func TestConcurrentStarlarkTool(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
table = {"base": 1000, "names": ["a", "b", "c"]}   # shared, frozen
def work(args):
    n = args["n"]
    total = 0
    for i in range(n % 7):
        total += i
    state.incr("calls")
    return json.encode({"n": n, "double": n * 2, "tri": total, "base": table["base"], "name": table["names"][n % 3]})
tool(name = "work", fn = work)
def count(call, result):
    if result.ok:
        state.incr("after_ok")
after(count)
`)
	const goroutines, calls = 32, 20
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*calls)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			<-start
			for i := 0; i < calls; i++ {
				n := g*1000 + i
				res, err := e.ex.InvokeTool(context.Background(), "work", json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)))
				if err != nil {
					errs <- err
					continue
				}
				tri := 0
				for k := 0; k < n%7; k++ {
					tri += k
				}
				want := fmt.Sprintf(`{"base":1000,"double":%d,"n":%d,"name":%q,"tri":%d}`, 2*n, n, []string{"a", "b", "c"}[n%3], tri)
				if res.ForLLM != want {
					errs <- fmt.Errorf("call n=%d: got %s, want %s", n, res.ForLLM, want)
				}
			}
		}(g)
	}
	bounded(t, "concurrent calls", func() {
		close(start)
		wg.Wait()
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, key := range []string{"calls", "after_ok"} {
		if v, _ := e.ex.Session().Get(key); v != int64(goroutines*calls) {
			t.Errorf("state %s = %v, want %d", key, v, goroutines*calls)
		}
	}
}

// TestParallelInvokeAllStarlarkTool: invoke_all in parallel mode runs a
// Starlark tool's calls at the same time (they meet at a gate that needs
// all of them), with exact state counts and results in call order.
func TestParallelInvokeAllStarlarkTool(t *testing.T) {
	const n = 16
	e := newEnv(t, Options{})
	g := newGate(n)
	var f inflight
	e.goTool("meet", core.Bool(true), func(ctx context.Context, args map[string]any) (any, error) {
		f.enter()
		defer f.leave()
		return "met", g.Wait(ctx)
	})
	e.runBounded("parallel invoke_all", `
def worker(args):
    state.incr("started")
    r = invoke_tool("meet")
    if not r.ok:
        fail(r.error)
    state.incr("count", args["i"])
    return "w%d" % args["i"]
tool(name = "worker", fn = worker)
rs = invoke_all([("worker", {"i": i}) for i in range(16)], mode = "parallel")
print(",".join([r.output for r in rs]))
print(all([r.ok for r in rs]), state.get("started"), state.get("count"))
`)
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, "w"+strconv.Itoa(i))
	}
	wantLines(t, e.lines(), joinComma(want), fmt.Sprintf("True %d %d", n, n*(n-1)/2))
	if max, total := f.stats(); max != n || total != n {
		t.Fatalf("overlap %d of %d calls, want %d of %d", max, total, n, n)
	}
}

// TestStateIncrFromParallelTools: state.incr is atomic across tools running
// in parallel, in every mode.
func TestStateIncrFromParallelTools(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("state.incr", `
def bump(args):
    for i in range(25):
        state.incr("hits")
        state.incr("by_" + args["who"], 2)
    return "done"
tool(name = "bump", fn = bump, concurrency_safe = True)
for mode in ["parallel", "mixed", "serial"]:
    rs = invoke_all([("bump", {"who": "w%d" % (i % 4)}) for i in range(40)], mode = mode, concurrency = 8)
    if not all([r.ok for r in rs]):
        fail("a bump failed")
print(state.get("hits"), [state.get("by_w%d" % i) for i in range(4)])
print(state.keys())
`)
	wantLines(t, e.lines(),
		"3000 [1500, 1500, 1500, 1500]",
		`["by_w0", "by_w1", "by_w2", "by_w3", "hits"]`)
}

// TestNestedInvoke: Starlark tools, hooks and middleware that call other
// Starlark tools through invoke_tool and invoke_all, in every mode, never
// deadlock.
func TestNestedInvoke(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def leaf(args):
    return "leaf(%s)" % args["x"]
tool(name = "leaf", fn = leaf, concurrency_safe = True)
tool(name = "leaf_undeclared", fn = leaf)

def mid(args):
    r = invoke_tool("leaf", {"x": args["x"]})
    return "mid(" + r.output + ")"
tool(name = "mid", fn = mid)

def fan(args):
    rs = invoke_all([("mid", {"x": i}) for i in range(3)] +
                    [("leaf_undeclared", {"x": 9}), ("leaf", {"x": 8})],
                    mode = args["mode"], concurrency = args.get("conc", 0))
    for r in rs:
        if not r.ok:
            fail(r.error)
    return "fan[" + args["mode"] + "](" + ",".join([r.output for r in rs]) + ")"
tool(name = "fan", fn = fan, concurrency_safe = True)

def outer(args):
    rs = invoke_all([("fan", {"mode": m, "conc": c}) for m in ["serial", "parallel", "mixed"] for c in [0, 1]],
                    mode = args["mode"], concurrency = 1)
    return " ".join([r.output if r.ok else "ERR:" + r.error for r in rs])
tool(name = "outer", fn = outer)

def nested_hook(call):
    r = invoke_tool("leaf", {"x": "hook"})
    if r.output != "leaf(hook)":
        return deny("nested call in hook failed: " + str(r))
before(nested_hook, tools = ["outer", "fan"])

def nested_mw(call, next):
    rs = invoke_all([("leaf", {"x": "mw1"}), ("leaf", {"x": "mw2"})], mode = "parallel")
    res = next(call)
    if not res.ok:
        return res
    return res.output + " +" + rs[0].output + rs[1].output
middleware(nested_mw, tools = ["outer"])
`)
	fan := func(mode string) string {
		return "fan[" + mode + "](mid(leaf(0)),mid(leaf(1)),mid(leaf(2)),leaf(9),leaf(8))"
	}
	want := fmt.Sprintf("%s %s %s %s %s %s +leaf(mw1)leaf(mw2)",
		fan("serial"), fan("serial"), fan("parallel"), fan("parallel"), fan("mixed"), fan("mixed"))
	for _, mode := range []string{"serial", "parallel", "mixed"} {
		t.Run(mode, func(t *testing.T) {
			var res *core.Result
			bounded(t, "nested "+mode, func() {
				res = e.invoke("outer", `{"mode":"`+mode+`"}`)
			})
			if !res.OK() || res.ForLLM != want {
				t.Fatalf("got %q (err %v)\nwant %q", res.ForLLM, res.Err, want)
			}
		})
	}
	// The whole thing from a top-level invoke_all in parallel too.
	e.out.Reset()
	e.runBounded("nested from script", `
rs = invoke_all([("outer", {"mode": m}) for m in ["serial", "parallel", "mixed"]] * 2, mode = "parallel")
print(len(rs), all([r.ok for r in rs]), len(set([r.output for r in rs])))
`)
	wantLines(t, e.lines(), "6 True 1")
}

// TestNestedRecursiveTool: a tool that calls itself through the pipeline
// (bounded by its argument) works and each level has its own budget.
func TestNestedRecursiveTool(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 5000})
	e.runBounded("recursive tool", `
def countdown(args):
    n = args["n"]
    if n == 0:
        return "0"
    busy = 0
    for i in range(300):   # most of a budget at each level
        busy += 1
    return str(n) + " " + invoke_tool("countdown", {"n": n - 1}).output
tool(name = "countdown", fn = countdown)
print(invoke_tool("countdown", {"n": 20}).output)
`)
	wantLines(t, e.lines(), "20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0")
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
