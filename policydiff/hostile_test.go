package policydiff_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/audit"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/policydiff"
)

// auditLog renders calls as audit log lines (kind call, origin model).
func auditLog(tb testing.TB, calls ...audit.Call) []byte {
	tb.Helper()
	var out bytes.Buffer
	prev := ""
	for i, c := range calls {
		if c.Origin == "" {
			c.Origin = "model"
		}
		b, err := json.Marshal(audit.Record{Seq: uint64(i + 1), Prev: prev, Kind: audit.KindCall, Call: c})
		must(tb, err)
		body := bytes.TrimSuffix(b, []byte(`,"hash":""}`))
		sum := sha256.Sum256(body)
		prev = hex.EncodeToString(sum[:])
		fmt.Fprintf(&out, "%s,\"hash\":%q}\n", body, prev)
	}
	return out.Bytes()
}

// setup writes policy files and sources into a temp dir: name → content.
func setup(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	must(tb, os.MkdirAll(filepath.Join(dir, "work", "src"), 0o755))
	for name, content := range files {
		p := filepath.Join(dir, name)
		must(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		must(tb, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func run(dir, oldSet, newSet string, sources ...string) (*policydiff.Report, error) {
	for i, s := range sources {
		sources[i] = filepath.Join(dir, s)
	}
	return agentsh.DiffPolicies(context.Background(), agentsh.PolicyDiff{Old: filepath.Join(dir, oldSet),
		New: filepath.Join(dir, newSet), Sources: sources, Config: agentsh.Config{WorkDir: filepath.Join(dir, "work")}, Coverage: true})
}

const nothing = "# no hooks\n"

// TestBadSources: a line that is not its file's format, a file of no
// format, a record that is not a call, a nesting past the decoder's depth
// and a source that does not exist are errors naming the file and line;
// a last line cut short is skipped and counted, an empty file is no error.
func TestBadSources(t *testing.T) {
	good := string(auditLog(t, audit.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}))
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	dir := setup(t, map[string]string{
		"p.star":        nothing,
		"bad.jsonl":     good + "{not json\n" + good,
		"none.txt":      "hello\n",
		"kind.jsonl":    strings.Replace(good, `"kind":"call"`, `"kind":"vote"`, 1),
		"origin.jsonl":  strings.Replace(good, `"origin":"model"`, `"origin":"robot"`, 1),
		"notool.jsonl":  strings.Replace(good, `"tool":"read_file"`, `"tool":""`, 1),
		"deep.jsonl":    good + `{"seq":2,"kind":"call","call":{"tool":"t","args":` + deep + `}}` + "\n",
		"torn.jsonl":    good + good[:len(good)/2],
		"empty.jsonl":   "",
		"blank.jsonl":   "\n  \n",
		"dir/a.jsonl":   good,
		"dir/z.txt":     "stray\n",
		"dir/.hidden":   "ignored\n",
		"session.jsonl": `{"t":"session","v":1,"workdir":"/w"}` + "\n" + `{"t":"msg","msg":{"role":"assistant","tool_calls":[{"id":"x","name":"t"}]},"args":["{bad"]}` + "\n",
	})
	for _, c := range []struct{ source, want string }{
		{"bad.jsonl", "bad.jsonl:2: not a line of an audit log: invalid character 'n'"},
		{"none.txt", "none.txt:1: not a line of an audit log, a session or a recording (hello)"},
		{"kind.jsonl", `kind.jsonl:1: not a line of an audit log: a record of kind "vote", want call, decide or observe`},
		{"origin.jsonl", `origin.jsonl:1: not a line of an audit log: call.origin "robot", want person, model, mcp or hook`},
		{"notool.jsonl", `notool.jsonl:1: not a line of an audit log: a record without call.tool`},
		{"deep.jsonl", "deep.jsonl:2: not a line of an audit log: "},
		{"dir", "z.txt:1: not a line of an audit log, a session or a recording (stray)"},
		{"session.jsonl", `session.jsonl:2: not a line of a session: tool call 0's arguments "{bad" are not JSON`},
		{"missing.jsonl", "missing.jsonl: no such file, directory or saved session"},
	} {
		_, err := run(dir, "p.star", "p.star", c.source)
		var ie *policydiff.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an InputError with %q", c.source, err, c.want)
		}
	}
	r, err := run(dir, "p.star", "p.star", "torn.jsonl", "empty.jsonl", "blank.jsonl", "dir/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 2 || r.SkippedBy["torn"] != 1 || r.Changed != 0 {
		t.Errorf("torn, empty, blank and a: %d calls, skipped %v, %d changed; want 2 calls, 1 torn", r.Calls, r.SkippedBy, r.Changed)
	}
	if s := r.Summary(); !strings.Contains(s, "2 calls re-decided, 0 changed, 1 skipped (torn: 1); empty: ") || !strings.Contains(s, "empty.jsonl") {
		t.Errorf("summary %q", s)
	}
}

// TestHostileCalls: unknown tools, paths that leave the workdir,
// arguments that are not an object and huge arguments are decided like
// any call; a hook that fails is a deny, reported as failed; a hook that
// calls a tool while deciding runs none.
func TestHostileCalls(t *testing.T) {
	huge := strings.Repeat("x", 4<<20)
	calls := []audit.Call{
		{ID: "unknown", Tool: "no_such_tool", Args: json.RawMessage(`{}`)},
		{ID: "escape", Tool: "read_file", Args: json.RawMessage(`{"path":"../../../etc/passwd"}`)},
		{ID: "notobject", Tool: "read_file", Args: json.RawMessage(`[1,2]`)},
		{ID: "huge", Tool: "write_file", Args: json.RawMessage(`{"path":"src/big","content":"` + huge + `"}`)},
		{ID: "boom", Tool: "read_file", Args: json.RawMessage(`{"path":"src/boom"}`)},
		{ID: "sneaky", Tool: "read_file", Args: json.RawMessage(`{"path":"src/sneaky"}`)},
		{ID: "fine", Tool: "read_file", Args: json.RawMessage(`{"path":"src/fine"}`), Origin: "person"},
	}
	dir := setup(t, map[string]string{
		"old.star": nothing,
		"new.star": `
def flaky(call):
    if call.args.get("path") == "src/boom":
        fail("boom")

before(flaky)

def sneaky(call):
    if call.args.get("path") == "src/sneaky":
        r = invoke_tool("write_file", {"path": "src/pwned", "content": "x"})
        return deny("tried a tool while deciding: %s" % r.ok)

before(sneaky)

def big(call):
    if len(call.args.get("content", "")) > 1000000:
        return deny("too big")

before(big)
`,
		"log.jsonl": string(auditLog(t, calls...)),
	})
	r, err := run(dir, "old.star", "new.star", "log.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "src", "pwned")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a hook's invoke_tool while deciding wrote a file: %v", err)
	}
	got := map[string]string{}
	for _, g := range r.Changes {
		for _, c := range g.Calls {
			got[c.ID] = fmt.Sprintf("%s %s %v -> %s %s %v", g.From.Verdict, g.From.Hook, g.From.Failed, g.To.Verdict, g.To.Hook, g.To.Failed)
			if len(c.Args) > 130 {
				t.Errorf("%s: args preview of %d bytes", c.ID, len(c.Args))
			}
		}
	}
	want := map[string]string{
		"huge":   "ask default false -> deny big false",
		"boom":   "allow default false -> deny flaky true",
		"sneaky": "allow default false -> deny sneaky false",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changes:\n got %v\nwant %v", got, want)
	}
	if r.Calls != len(calls) || r.Changed != len(want) {
		t.Errorf("%d calls, %d changed; want %d and %d", r.Calls, r.Changed, len(calls), len(want))
	}
	cov := map[string]string{}
	for _, h := range r.Coverage {
		cov[h.Hook] = count(h.Old) + "→" + count(h.New)
	}
	// An unknown tool is refused after the approval step, which names it
	// (core.Settled); arguments that are not an object reach no step.
	for hook, w := range map[string]string{"(invalid_arguments)": "1→1", "canonical": "1→1",
		"flaky": "-→1", "sneaky": "-→1", "big": "-→1", "default": "5→2"} {
		if cov[hook] != w {
			t.Errorf("coverage of %s: %s, want %s (all: %v)", hook, cov[hook], w, cov)
		}
	}

	// A hook that fails under both sets is no change, though its error
	// names each copy's file and line.
	must(t, os.WriteFile(filepath.Join(dir, "copy.star"), []byte("\n\n"+mustRead(t, filepath.Join(dir, "new.star"))), 0o644))
	if r, err := run(dir, "new.star", "copy.star", "log.jsonl"); err != nil || r.Changed != 0 {
		t.Errorf("a policy against its copy: %v, %+v", err, r)
	}
}

func count(s *policydiff.SideCoverage) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprint(s.Calls)
}

func mustRead(tb testing.TB, path string) string {
	b, err := os.ReadFile(path)
	must(tb, err)
	return string(b)
}

// TestBadPolicies: a policy set that does not load is a PolicySetError
// naming the side and the file; a directory loads its policy files in
// name order and leaves its tests out.
func TestBadPolicies(t *testing.T) {
	dir := setup(t, map[string]string{
		"ok.star":         nothing,
		"broken.star":     "def (:\n",
		"raises.star":     "fail(\"no\")\n",
		"set/a.star":      "def a(call):\n    return deny(\"a\")\n\nbefore(a)\n",
		"set/b.lua":       "before(function(call) return deny(\"b\") end)\n",
		"set/a_test.star": "fail(\"a test is not a policy\")\n",
		"set/notes.txt":   "not a policy",
		"emptyset/x.txt":  "",
		"log.jsonl":       string(auditLog(t, audit.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)})),
	})
	for _, c := range []struct{ old, new, want string }{
		{"broken.star", "ok.star", "the OLD policies (" + filepath.Join(dir, "broken.star") + "): "},
		{"ok.star", "raises.star", "the NEW policies (" + filepath.Join(dir, "raises.star") + "): "},
		{"ok.star", "missing.star", "give a policy file (.star or .lua) or a directory of them"},
		{"ok.star", "emptyset", "holds no .star or .lua policy file"},
	} {
		_, err := run(dir, c.old, c.new, "log.jsonl")
		var pe *agentsh.PolicySetError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v, want a PolicySetError with %q", c.old, c.new, err, c.want)
		}
	}
	r, err := run(dir, "ok.star", "set", "log.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].To.Hook != "a" || r.Changes[0].To.Verdict != core.VerdictDeny {
		t.Errorf("the set's first file's hook should decide: %+v", r.Changes)
	}
}

// TestCanceled: a diff stopped by its context says so.
func TestCanceled(t *testing.T) {
	dir := setup(t, map[string]string{"p.star": nothing, "log.jsonl": string(auditLog(t,
		audit.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}))})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := agentsh.DiffPolicies(ctx, agentsh.PolicyDiff{Old: filepath.Join(dir, "p.star"), New: filepath.Join(dir, "p.star"),
		Sources: []string{filepath.Join(dir, "log.jsonl")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled diff: %v, want context.Canceled", err)
	}
}

// TestRunawayHook: a hook that never returns fails at the step bound (a
// deny, reported as failed), and without one the diff stops at its
// deadline with an error that says what to do.
func TestRunawayHook(t *testing.T) {
	dir := setup(t, map[string]string{
		"p.star":    nothing,
		"spin.star": "def spin(call):\n    n = 0\n    for i in range(1000000000):\n        n += i\n\nbefore(spin)\n",
		"log.jsonl": string(auditLog(t, audit.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)})),
	})
	d := agentsh.PolicyDiff{Old: filepath.Join(dir, "p.star"), New: filepath.Join(dir, "spin.star"),
		Sources: []string{filepath.Join(dir, "log.jsonl")}, Config: agentsh.Config{WorkDir: dir, MaxSteps: 10_000}}
	r, err := agentsh.DiffPolicies(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].To.Hook != "spin" || !r.Changes[0].To.Failed || r.Changes[0].To.Verdict != core.VerdictDeny {
		t.Errorf("a hook past its steps: %+v, want a failed deny by spin", r.Changes)
	}
	// Without a bound the hook spins past the diff's deadline, which
	// leaves loading both sets the room a loaded machine needs.
	d.Config.MaxSteps = 0
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Bound(500*time.Millisecond))
	defer cancel()
	if _, err := agentsh.DiffPolicies(ctx, d); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "--max-steps") {
		t.Errorf("a diff past its deadline: %v, want context.DeadlineExceeded and what to do", err)
	}
}

// TestJSONShape: --json's object has the members the package doc
// documents, coverage too, and nothing else.
func TestJSONShape(t *testing.T) {
	dir := setup(t, map[string]string{
		"p.star":    nothing,
		"q.star":    "def no(call):\n    return deny(\"no\")\n\nbefore(no)\n",
		"log.jsonl": string(auditLog(t, audit.Call{ID: "c1", Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`), WorkDir: "/w"})),
	})
	r, err := run(dir, "p.star", "q.star", "log.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	must(t, r.WriteJSON(&buf))
	var top map[string]json.RawMessage
	must(t, json.Unmarshal(buf.Bytes(), &top))
	var changes []struct {
		From, To map[string]any
		Count    int
		Calls    []map[string]any
	}
	must(t, json.Unmarshal(top["changes"], &changes))
	var cov []map[string]any
	must(t, json.Unmarshal(top["coverage"], &cov))
	keys := func(m any) string {
		var ks []string
		switch m := m.(type) {
		case map[string]json.RawMessage:
			for k := range m {
				ks = append(ks, k)
			}
		case map[string]any:
			for k := range m {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		return strings.Join(ks, " ")
	}
	if len(changes) != 1 || len(changes[0].Calls) != 1 || len(cov) == 0 {
		t.Fatalf("%s", buf.Bytes())
	}
	for _, c := range []struct{ what, got, want string }{
		{"the object", keys(top), "calls changed changes coverage new old skipped skipped_by sources"},
		{"from", keys(changes[0].From), "hook verdict"}, // the default has no source
		{"to", keys(changes[0].To), "hook source verdict"},
		{"a call", keys(changes[0].Calls[0]), "args at format id new_reason old_reason origin tool workdir"},
		{"a coverage row", keys(cov[0]), "hook new old"},
	} {
		if c.got != c.want {
			t.Errorf("%s has %q, want %q", c.what, c.got, c.want)
		}
	}
}
