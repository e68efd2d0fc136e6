package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/agentapi"
)

// eventsDoc reads docs/events.md and splits it into sections by their
// "### " headings.
func eventsDoc(t *testing.T) (doc string, sections map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc = string(b)
	sections = map[string]string{}
	heading := regexp.MustCompile("`([a-z_]+)`")
	parts := strings.Split(doc, "\n### ")
	for _, p := range parts[1:] {
		head, body, _ := strings.Cut(p, "\n")
		if i := strings.Index(body, "\n## "); i >= 0 {
			body = body[:i]
		}
		for _, m := range heading.FindAllStringSubmatch(head, -1) {
			sections[m[1]] = body
		}
	}
	return doc, sections
}

// emittedEvents finds the event types the code emits: agent.Event's Type
// in package agent and the "event" values the command writes.
func emittedEvents(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	patterns := map[string]*regexp.Regexp{
		"agent":       regexp.MustCompile(`\bType:\s*"([a-z_]+)"`),
		"cmd/agentsh": regexp.MustCompile(`"event"(?:\]\s*=|:)\s*"([a-z_]+)"`),
		".":           regexp.MustCompile(`"event"(?:\]\s*=|:)\s*"([a-z_]+)"`),
	}
	seen := map[string]bool{}
	for dir, re := range patterns {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				seen[m[1]] = true
			}
		}
	}
	var out []string
	for e := range seen {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// rows are the field names of a section's table rows.
func rows(section string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		out[m[1]] = true
	}
	return out
}

// TestEventsDoc keeps docs/events.md true: every event type the code
// emits has a section, every field of agent.Event, of tool_end, error and
// result has a row.
func TestEventsDoc(t *testing.T) {
	doc, sections := eventsDoc(t)
	types := emittedEvents(t)
	for _, want := range []string{"print", "tool_start", "tool_end", "model_request", "text", "turn_end", "error", "result"} {
		if !contains(types, want) {
			t.Fatalf("the scan of the source found no %q event (found %v): the test no longer sees what the code emits", want, types)
		}
	}
	for _, typ := range append(types, "compaction", "subagent_start", "subagent_end") {
		if _, ok := sections[typ]; !ok {
			t.Errorf("docs/events.md has no ### section for the %q event", typ)
		}
	}

	agentRows := rows(doc[strings.Index(doc, "## Agent events"):])
	et := reflect.TypeOf(agent.Event{})
	for i := 0; i < et.NumField(); i++ {
		tag, _, _ := strings.Cut(et.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" && !agentRows[tag] {
			t.Errorf("docs/events.md: the agent events' table has no row for agent.Event.%s (%q)", et.Field(i).Name, tag)
		}
	}

	check := func(typ string, fields []string) {
		have := rows(sections[typ])
		for _, f := range fields {
			if !have[f] {
				t.Errorf("docs/events.md: the %s table has no row for %q", typ, f)
			}
		}
		for f := range have {
			if !contains(fields, f) {
				t.Errorf("docs/events.md: the %s table has a row for %q, which the event does not have", typ, f)
			}
		}
	}
	check("tool_end", append(append([]string{"event"}, script.FieldNames...), "violations"))
	withSchema := agentapi.Outcome{Reply: &agent.Reply{Stop: "final"}, Schema: true}
	check("result", keys(agentsh.ResultEvent([]agentapi.Outcome{withSchema}, 0)))
	var buf bytes.Buffer
	agentsh.NewEvents(&buf).Error(&script.Error{File: "f.star", Line: 1, Msg: "x", Backtrace: "b"}, 1)
	var errEv map[string]any
	if err := json.Unmarshal(buf.Bytes(), &errEv); err != nil {
		t.Fatal(err)
	}
	check("error", keys(errEv))
	check("print", []string{"event", "text"})
	check("tool_start", []string{"event", "call_id", "tool", "args"})
	check("exit", []string{"event", "exit_code"})
	check("hook", keys(agentsh.HookEvent(hookadapter.Record{
		Agent:  "codex",
		Event:  &hookadapter.Event{Name: "PreToolUse", SessionID: "s", Cwd: "/w", Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		Answer: hookadapter.Answer{Input: json.RawMessage(`{}`), Ruling: &executor.Ruling{}, Result: &core.Result{}},
		Stderr: "agentsh: blocked",
	})))
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
