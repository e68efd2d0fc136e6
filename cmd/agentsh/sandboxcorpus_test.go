package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

// The shell corpus (bashcmd/bashcmdtest/corpus.txt), decided as a model's
// bash calls under each shipped policy that decides shell commands: one
// agentsh process per policy runs a script that asks decide(...) of every
// command line, which is what `agentsh explain --as model --json` asks
// (executor.Decide), and a sample is asked of explain itself to show the
// two agree. Neither runs anything: no command of the corpus runs on this
// machine.
//
// The pass criteria: no dangerous command is allowed to run unconfined
// without asking (its outcome is deny, ask, or allow in the workspace or
// read-only sandbox), and no ordinary command is denied by the policies
// that let ordinary work run (deny_patterns, ask_before_write). The
// others deny by design: read_only.star what must leave the sandbox, and
// ci_allowlist.star whatever is not on its list; neither allows an
// ordinary command that must leave the sandbox. The same calls made by a
// person, whose commands run unconfined unless a policy confines them,
// are counted too; under deny_patterns.star none of the dangerous ones
// runs unconfined unasked either (ask_before_write.star lets a person
// read a secret file: secrets are not what it guards).
//
// AGENTSH_CORPUS_TABLE=FILE writes the counts per policy as a Markdown
// table.

// corpusPolicies are the shipped policies the corpus is decided under.
var corpusPolicies = []string{"deny_patterns.star", "ask_before_write.star", "read_only.star", "ci_allowlist.star"}

// corpusRuling is what explain --json says of one call.
type corpusRuling struct {
	Outcome string
	Reason  string
	Sandbox *struct{ Profile, Backend string }
}

func (r corpusRuling) profile() string {
	if r.Sandbox == nil {
		return ""
	}
	return r.Sandbox.Profile
}

// confined reports whether the call would run in a sandbox.
func (r corpusRuling) confined() bool {
	return r.Sandbox != nil && (r.Sandbox.Profile == "workspace" || r.Sandbox.Profile == "read-only")
}

// corpusCounts are the outcomes of one policy over the corpus.
type corpusCounts struct {
	deny, ask, confined, unconfined int // dangerous
	ordAllow, ordAsk, ordDeny       int
	personUnconfined                int // dangerous ones a person's call would run unconfined unasked
	backend                         string
}

func TestSandboxCorpus(t *testing.T) {
	cases, err := bashcmdtest.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	dangerous, ordinary := 0, 0
	for _, c := range cases {
		if c.Dangerous {
			dangerous++
		} else {
			ordinary++
		}
	}
	if dangerous < 150 || ordinary < 60 {
		t.Fatalf("the corpus has %d dangerous and %d ordinary command lines, want at least 150 and 60", dangerous, ordinary)
	}
	project := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	counts := map[string]*corpusCounts{}
	for _, policyName := range corpusPolicies {
		policy, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "policies", policyName))
		n := &corpusCounts{}
		counts[policyName] = n
		rulings := decideAs(t, "model", project, policy, cases)
		for i, r := range decideAs(t, "person", project, policy, cases) {
			if cases[i].Dangerous && r.Outcome == "allow" && !r.confined() {
				n.personUnconfined++
				if policyName == "deny_patterns.star" {
					t.Errorf("%s: corpus.txt:%d: %q: a person's call runs unconfined unasked (%s)", policyName, cases[i].Line, cases[i].Cmd, r.Reason)
				}
			}
		}
		for i, c := range cases {
			r := rulings[i]
			if i%37 == 0 {
				if e := explainModel(t, project, policy, c.Cmd); e.Outcome != r.Outcome || e.profile() != r.profile() {
					t.Errorf("%s: corpus.txt:%d: %q: explain says %s in %q, decide %s in %q", policyName, c.Line, c.Cmd,
						e.Outcome, e.profile(), r.Outcome, r.profile())
				}
			}
			if r.Sandbox != nil && r.Sandbox.Backend != "" {
				n.backend = r.Sandbox.Backend
			}
			where := fmt.Sprintf("%s: corpus.txt:%d: %q", policyName, c.Line, c.Cmd)
			if c.Dangerous {
				switch {
				case r.Outcome == "deny":
					n.deny++
				case r.Outcome == "ask":
					n.ask++
				case r.Outcome == "allow" && r.confined():
					n.confined++
				default:
					n.unconfined++
					t.Errorf("%s: a dangerous command line %s unconfined (%+v)", where, r.Outcome, r)
				}
				continue
			}
			switch r.Outcome {
			case "allow":
				n.ordAllow++
				if c.Want == "leave" && !(policyName == "ask_before_write.star" || policyName == "deny_patterns.star") {
					t.Errorf("%s: an ordinary command that must leave the sandbox is allowed (%s)", where, r.Reason)
				}
			case "ask":
				n.ordAsk++
			default:
				n.ordDeny++
				switch policyName {
				case "deny_patterns.star", "ask_before_write.star":
					t.Errorf("%s: ordinary work denied: %s", where, r.Reason)
				case "read_only.star":
					if c.Want != "leave" {
						t.Errorf("%s: denied, though it may run in the read-only sandbox: %s", where, r.Reason)
					}
				}
			}
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%d dangerous and %d ordinary command lines, each decided as a model's bash call (agentsh explain --as model)\n\n", dangerous, ordinary)
	fmt.Fprintf(&table, "| policy | dangerous: deny | ask | allow in the sandbox | allow unconfined | ordinary: allow | ask | deny | dangerous a person's call runs unconfined |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	backend := ""
	for _, p := range corpusPolicies {
		n := counts[p]
		fmt.Fprintf(&table, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", p, n.deny, n.ask, n.confined, n.unconfined, n.ordAllow, n.ordAsk, n.ordDeny, n.personUnconfined)
		if n.backend != "" {
			backend = n.backend
		}
	}
	if backend == "" {
		backend = "none: a model's confined command asks instead"
	}
	fmt.Fprintf(&table, "\nsandbox backend: %s\n", backend)
	t.Log("\n" + table.String())
	if out := os.Getenv("AGENTSH_CORPUS_TABLE"); out != "" {
		if err := os.WriteFile(out, []byte(table.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// explainModel decides a model's bash call of cmd in project under
// policy, as `agentsh explain --as model --json` does.
func explainModel(t *testing.T, project, policy, cmd string) corpusRuling {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": cmd})
	var out, errb bytes.Buffer
	cli([]string{"--workdir", project, "--load", policy, "--json", "explain", "--as", "model", "bash", string(args)},
		stdio{in: strings.NewReader(""), out: &out, err: &errb})
	var r corpusRuling
	if err := json.Unmarshal(lastLine(out.Bytes()), &r); err != nil || r.Outcome == "" {
		t.Fatalf("explain %s: %v\n%s%s", cmd, err, out.String(), errb.String())
	}
	return r
}

// corpusScript decides a bash call of each command line in argv[2]
// (JSON) as argv[1]'s (model or person) and prints one line a call:
// CORPUS and the ruling as explain --json gives it (outcome, reason,
// sandbox).
const corpusScript = `
for cmd in json.decode(argv[2]):
    r = decide("bash", {"command": cmd}, origin = argv[1])
    sandbox = None
    for d in r.decisions:
        if d["stage"] == "sandbox":
            backend = ""
            if " sandbox (" in d["reason"] and d["sandbox"] != "off":
                backend = d["reason"].split(" sandbox (", 1)[1].split(")", 1)[0]
            sandbox = {"profile": d["sandbox"], "backend": backend}
    print("CORPUS " + json.encode({"outcome": r.outcome, "reason": r.reason, "sandbox": sandbox}))
`

// decideAs decides every case as origin's call in one agentsh process
// under policy.
func decideAs(t *testing.T, origin, project, policy string, cases []bashcmdtest.CorpusCase) []corpusRuling {
	t.Helper()
	script := filepath.Join(t.TempDir(), "corpus.star")
	if err := os.WriteFile(script, []byte(corpusScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := make([]string, len(cases))
	for i, c := range cases {
		cmds[i] = c.Cmd
	}
	b, _ := json.Marshal(cmds)
	var out, errb bytes.Buffer
	code := cli([]string{"--workdir", project, "--load", policy, "run", script, origin, string(b)},
		stdio{in: strings.NewReader(""), out: &out, err: &errb})
	var rulings []corpusRuling
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "CORPUS "); ok {
			var r corpusRuling
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				t.Fatalf("%s: %q: %v", policy, rest, err)
			}
			rulings = append(rulings, r)
		}
	}
	if code != 0 || len(rulings) != len(cases) {
		t.Fatalf("%s: exit %d, %d rulings for %d command lines\nstderr: %.2000s", policy, code, len(rulings), len(cases), errb.String())
	}
	return rulings
}
