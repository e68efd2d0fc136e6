package agentapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

// answers is a scripted model that answers request n with texts[n-1]
// and keeps what it was asked.
type answers struct {
	texts []string
	seen  []provider.Request
}

func (a *answers) provider() provider.Provider {
	return provider.Func{Label: "answers", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		a.seen = append(a.seen, req)
		if len(a.seen) > len(a.texts) {
			return provider.Response{}, errors.New("no more answers")
		}
		return provider.Response{Content: a.texts[len(a.seen)-1]}, nil
	}}
}

// ask(prompt, schema = {...}) validates the answer: a violation gets a
// correction and another turn, and reply.data is the answer decoded, in
// both languages.
func TestAskSchema(t *testing.T) {
	src := map[string]string{
		"star": `r = ask("who?", schema = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]})
print(r.stop, r.turns, r.data["age"] + 1, len(r.violations))`,
		"lua": `local r = ask("who?", {schema = {type = "object", properties = {age = {type = "integer"}}, required = {"age"}}})
print(r.stop, r.turns, r.data.age + 1, #r.violations)`,
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			m := &answers{texts: []string{`{"age": "old"}`, "```json\n{\"age\": 36}\n```"}}
			e := newEnv(t, agentapi.Config{Provider: m.provider()})
			e.run(lang, src[lang])
			if got := strings.Join(strings.Fields(strings.Join(e.lines(), " ")), " "); got != "final 2 37 0" {
				t.Errorf("got %q, want final 2 37 0", got)
			}
			fix := m.seen[1].Messages[2].Content
			if !strings.Contains(fix, "/age: ") || !strings.Contains(fix, `"required":["age"]`) {
				t.Errorf("the correction does not name the violation and the schema:\n%s", fix)
			}
			outs := e.sess.Outcomes()
			if len(outs) != 1 || !outs[0].Schema || outs[0].Err != nil || outs[0].Reply.Stop != agent.StopFinal {
				t.Errorf("outcomes %+v, want one final with a schema", outs)
			}
		})
	}
}

// An answer that never validates stops the ask with stop "schema" and
// says what was wrong.
func TestAskSchemaGivesUp(t *testing.T) {
	m := &answers{texts: []string{"nope", "nope", "nope"}}
	e := newEnv(t, agentapi.Config{Provider: m.provider()})
	e.run("star", `r = ask("who?", schema = {"type": "object"})
print(r.stop, r.turns, r.data, r.violations[0]["pointer"] == "", "not JSON" in r.violations[0]["message"])`)
	if got := strings.Join(e.lines(), " "); got != "schema 3 None True True" {
		t.Errorf("got %q", got)
	}
}

// A schema that is not one is an error naming what is wrong.
func TestAskBadSchema(t *testing.T) {
	e := newEnv(t, agentapi.Config{Provider: fixed("{}")})
	wantErr(t, "array schema", e.exec("star", `ask("x", schema = {"type": "array"})`), `ask: schema: the schema's top-level "type" must be "object"`)
	wantErr(t, "bad keyword", e.exec("lua", `ask("x", {schema = {type = "object", minProperties = "x"}})`), `ask: schema: the schema does not compile`)
	if n := len(e.sess.Outcomes()); n != 0 {
		t.Errorf("%d outcomes, want none: no run started", n)
	}
}

// Every top-level ask is an outcome, an error too (even one the script
// caught); a run from the Go side (RunTop) as well.
func TestOutcomes(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.run("lua", `local ok = pcall(ask, "no model yet")
model(function(messages, tools) return "hi" end)
ask("hello", {max_turns = 1})`)
	r, err := e.sess.RunTop(context.Background(), "again", false)
	if err != nil || r.Stop != agent.StopFinal {
		t.Fatalf("RunTop: %v %+v", err, r)
	}
	outs := e.sess.Outcomes()
	if len(outs) != 3 {
		t.Fatalf("%d outcomes, want 3", len(outs))
	}
	if !errors.Is(outs[0].Err, agent.ErrNoProvider) || outs[0].Reply == nil {
		t.Errorf("first outcome %+v, want the no-provider error with a reply", outs[0])
	}
	// An earlier run keeps its stop and counts; only the last keeps its
	// text. The reply the caller got is not changed.
	if outs[1].Err != nil || outs[1].Reply.Stop != agent.StopFinal || outs[1].Reply.Turns != 1 || outs[1].Reply.Text != "" {
		t.Errorf("earlier outcome %+v, want its stop and turns without its text", *outs[1].Reply)
	}
	if outs[2].Reply.Text != "hi" || r.Text != "hi" {
		t.Errorf("last outcome's text %q, the caller's %q; want hi", outs[2].Reply.Text, r.Text)
	}
}

// TestOutcomesKeepTheLastData: the data of the last run with a schema
// stays, whatever runs without one follow; a later run with a schema
// replaces it.
func TestOutcomesKeepTheLastData(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.run("star", `model(lambda messages, tools: '{"n": %d}' % len(messages))`)
	ctx := context.Background()
	schema, err := agent.CompileOutputSchema([]byte(`{"type": "object"}`))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := e.sess.RunTop(ctx, "one", true, agent.WithSchema(schema))
	e.sess.RunTop(ctx, "two", false)
	outs := e.sess.Outcomes()
	if got := fmt.Sprint(outs[0].Reply.Data); got != "map[n:1]" || outs[0].Reply.Text != "" {
		t.Errorf("the schema run's data %s text %q after a run without one; want its data kept, its text let go", got, outs[0].Reply.Text)
	}
	e.sess.RunTop(ctx, "three", true, agent.WithSchema(schema))
	outs = e.sess.Outcomes()
	if outs[0].Reply.Data != nil || fmt.Sprint(outs[2].Reply.Data) != "map[n:5]" {
		t.Errorf("data %v, %v; want the first let go for the last", outs[0].Reply.Data, outs[2].Reply.Data)
	}
	if fmt.Sprint(first.Data) != "map[n:1]" || first.Text == "" {
		t.Errorf("the caller's reply was changed: %+v", *first)
	}
}
