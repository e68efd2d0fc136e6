package hookadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// MaxInput bounds the hook input read from stdin.
const MaxInput = 16 << 20

// Config is what Run needs.
type Config struct {
	Protocol Protocol
	Exec     *executor.Executor
	// Load loads the policies into Exec; its failure blocks.
	Load func(ctx context.Context) error
	// Prompt runs the user_prompt hooks (nil: prompts pass unchanged).
	Prompt func(ctx context.Context, prompt string) (string, error)
	// StateDir keeps the session state per agent session id; "" keeps
	// none beyond the process.
	StateDir string
	// Audit, when set, receives the Record of the event as Run returns.
	Audit func(Record)
	// NoAfter says the agent's entries leave out the event after a tool
	// call (Entry.NoAfter): a call is blocked when the policies have
	// after hooks, which would never run.
	NoAfter bool
}

// Run reads one event from stdin, answers it on stdout and returns the
// exit code. Anything that goes wrong — input that is not the protocol's,
// Load failing, a panic, ctx ending first (a timeout) — is the blocking
// outcome: exit 2 and the reason on stderr. Run returns when ctx ends
// even if a hook ignores it.
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	rec := Record{Agent: cfg.Protocol.Name()}
	var errs bytes.Buffer
	if cfg.Audit != nil {
		stderr = io.MultiWriter(stderr, &errs)
	}
	code := run(ctx, cfg, &rec, stdin, stdout, stderr)
	if cfg.Audit != nil {
		rec.Code, rec.Stderr = code, errs.String()
		cfg.Audit(rec)
	}
	return code
}

func run(ctx context.Context, cfg Config, rec *Record, stdin io.Reader, stdout, stderr io.Writer) int {
	raw, err := io.ReadAll(io.LimitReader(stdin, MaxInput+1))
	switch {
	case err != nil:
		return block(stderr, fmt.Sprintf("reading the hook input: %v", err))
	case len(raw) > MaxInput:
		return block(stderr, fmt.Sprintf("the hook input is over %d bytes", MaxInput))
	}
	ev, err := cfg.Protocol.Parse(raw)
	if err != nil {
		return block(stderr, fmt.Sprintf("malformed %s hook input: %v", cfg.Protocol.Name(), err))
	}
	rec.Event = ev
	if ev.Kind == KindOther {
		fmt.Fprintf(stderr, "agentsh: %s hooks decide no %s events; nothing to do\n", cfg.Protocol.Name(), ev.Name)
		return 0
	}
	type outcome struct {
		a   Answer
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if v := recover(); v != nil {
				o.err = fmt.Errorf("agentsh panicked while deciding: %v", v)
			}
			done <- o
		}()
		o.a, o.err = handle(ctx, cfg, ev)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		return block(stderr, fmt.Sprintf("no decision in time (%v); the call is blocked", context.Cause(ctx)))
	}
	rec.Answer = o.a
	if o.err != nil {
		return block(stderr, o.err.Error())
	}
	if ctx.Err() != nil {
		return block(stderr, fmt.Sprintf("no decision in time (%v); the call is blocked", context.Cause(ctx)))
	}
	var out bytes.Buffer
	code := cfg.Protocol.Answer(ev, o.a, &out, stderr)
	stdout.Write(out.Bytes())
	return code
}

// handle decides ev with the session state of its agent session.
func handle(ctx context.Context, cfg Config, ev *Event) (Answer, error) {
	var st *stateFile
	if cfg.StateDir != "" && ev.SessionID != "" {
		var err error
		if st, err = openState(cfg.StateDir, cfg.Protocol.Name(), ev.SessionID); err != nil {
			return Answer{}, err
		}
		defer st.close()
		if err := st.load(cfg.Exec.Session()); err != nil {
			return Answer{}, err
		}
	}
	if err := cfg.Load(ctx); err != nil {
		return Answer{}, fmt.Errorf("the policies failed to load, so every call is blocked: %v", err)
	}
	var (
		a    Answer
		kept *core.Session
		err  error
	)
	switch ev.Kind {
	case KindPreTool:
		if cfg.NoAfter && cfg.Exec.HasAfterHooks() {
			return Answer{}, fmt.Errorf("the policies have after hooks, which %s's hook entries do not run (they were installed for policies without); run agentsh hook install %s again", cfg.Protocol.Name(), cfg.Protocol.Name())
		}
		a, kept, err = preTool(ctx, cfg, ev)
	case KindPostTool:
		a, err = postTool(ctx, cfg, ev)
		kept = cfg.Exec.Session()
	case KindPrompt:
		a, err = prompt(ctx, cfg, ev)
		kept = cfg.Exec.Session()
	}
	if err != nil {
		return Answer{}, err
	}
	if st != nil && kept != nil && ctx.Err() == nil {
		if err := st.save(kept); err != nil {
			return Answer{}, err
		}
	}
	return a, nil
}

// preTool decides a call with the model's defaults, as its canonical
// call (see ToolMap), and answers only what a policy said (see
// verdictOf) — except for a tool nobody mapped, which may do anything:
// it asks at least, and where the agent has no ask, that is a deny.
func preTool(ctx context.Context, cfg Config, ev *Event) (Answer, *core.Session, error) {
	tools := cfg.Protocol.Tools()
	c, err := MapCall(cfg.Protocol, ev.Tool, ev.Input, ev.Cwd)
	if err != nil {
		return Answer{}, nil, err
	}
	if err := tools.declare(cfg.Exec.Registry(), c.Name); err != nil {
		return Answer{}, nil, err
	}
	r := cfg.Exec.Decide(ctx, core.Call{Name: c.Name, Args: c.Args, Origin: core.OriginHook})
	if err := ctx.Err(); err != nil {
		return Answer{}, nil, fmt.Errorf("no decision in time (%v); the call is blocked", context.Cause(ctx))
	}
	a := verdictOf(r)
	if c.Name == applyPatch.Name && a.Verdict != core.VerdictDeny {
		if a, err = decidePatch(ctx, cfg, r, a); err != nil {
			return Answer{}, nil, err
		}
	}
	if !c.Known && a.Verdict < core.VerdictAsk {
		a = Answer{Verdict: core.VerdictAsk, Reason: fmt.Sprintf("%s's tool %s is not one agentsh maps, so nothing says what it does; a person must approve it (agentsh: unmapped tool; an agentsh that knows this %s version may map it)",
			cfg.Protocol.Name(), ev.Tool, cfg.Protocol.Name())}
	}
	if a.Verdict != core.VerdictDeny && rewrote(r) {
		back, err := c.Out(r.Args, canonicalArgs(r, c.Args), r.WorkDir, absolutePaths(cfg, c.Name))
		switch {
		case errors.Is(err, errCannotApply):
			return Answer{Verdict: core.VerdictDeny, Reason: fmt.Sprintf("a policy rewrote the call, which %s cannot apply (%v)", cfg.Protocol.Name(), err), Ruling: r, Args: c.Args}, r.Session, nil
		case err != nil:
			return Answer{}, nil, err
		}
		if !sameJSON(back, ev.Input) {
			a.Input = back
		}
	}
	a.Ruling, a.Args = r, c.Args
	return a, r.Session, nil
}

// canonicalArgs are the arguments of a ruling as the hooks first saw
// them: made canonical from sent, before any hook rewrote them.
func canonicalArgs(r *executor.Ruling, sent json.RawMessage) json.RawMessage {
	for _, d := range r.Decisions {
		if d.Stage == core.StageCanonical && d.Rewrote {
			return d.ArgsAfter
		}
	}
	return sent
}

// absolutePaths names the path arguments of the canonical tool name, when
// the agent wants its paths absolute.
func absolutePaths(cfg Config, name string) []string {
	ap, ok := cfg.Protocol.(interface{ AbsolutePaths() bool })
	t := cfg.Exec.Registry().GetTool(name)
	if !ok || !ap.AbsolutePaths() || t == nil {
		return nil
	}
	var out []string
	for _, e := range t.Effects {
		if e.Kind.IsPath() {
			out = append(out, e.Arg)
		}
	}
	return out
}

// verdictOf is what the policies said of a ruling: the strongest verdict
// of the before hooks, or of --permissions (allow-all, deny-unlisted) when
// they said nothing. The origin's default is no opinion: the agent's own
// permission system decides then.
func verdictOf(r *executor.Ruling) Answer {
	var a Answer
	var by core.Decision
	for _, d := range r.Decisions {
		switch {
		case d.Skipped:
		case d.Stage == core.StageCanonical || d.Stage == core.StageToolBefore || d.Stage == core.StageGlobalBefore:
			if d.Verdict > a.Verdict {
				a.Verdict, by = d.Verdict, d
			}
		case d.Stage == core.StageSandbox && d.Verdict > a.Verdict:
			// A policy allowed the command only in a sandbox, and the agent
			// runs it outside agentsh's: that asks.
			a.Verdict, by = d.Verdict, d
		case d.Stage == core.StageApproval && d.Hook == "permissions" && a.Verdict == core.VerdictNone:
			a.Verdict, by = d.Verdict, d
		}
	}
	if a.Verdict == core.VerdictNone {
		return a
	}
	a.Reason = by.Reason
	if a.Reason == "" {
		a.Reason = a.Verdict.String() + "ed"
		if a.Verdict == core.VerdictAsk {
			a.Reason = "asks for approval"
		}
	}
	who := by.Hook
	if by.Source != "" {
		who += " at " + by.Source
	}
	a.Reason = fmt.Sprintf("%s (agentsh policy: %s)", a.Reason, who)
	return a
}

// rewrote reports whether a hook rewrote the arguments; making them
// canonical is not a rewrite to send back.
func rewrote(r *executor.Ruling) bool {
	for _, d := range r.Decisions {
		if d.Rewrote && d.Stage != core.StageCanonical {
			return true
		}
	}
	return false
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// postTool runs the after hooks on the agent's call and its response. An
// after hook's failure is reported to the agent as a blocking error.
func postTool(ctx context.Context, cfg Config, ev *Event) (Answer, error) {
	tools := cfg.Protocol.Tools()
	c, err := tools.In(ev.Tool, ev.Input, ev.Cwd)
	if err != nil {
		return Answer{}, err
	}
	if err := tools.declare(cfg.Exec.Registry(), c.Name); err != nil {
		return Answer{}, err
	}
	res := cfg.Exec.Observe(ctx, core.Call{Name: c.Name, Args: c.Args, Origin: core.OriginHook}, responseResult(ev.Response))
	var failure *core.Error
	if errors.As(res.Err, &failure) && failure.Hook != "" {
		return Answer{Verdict: core.VerdictDeny, Reason: failure.Message, Result: res, Args: c.Args}, nil
	}
	return Answer{Result: res, Args: c.Args}, nil
}

// responseResult is the agent's tool response as a result: a string as
// ForLLM, anything else as its JSON text, and the value as Data.
func responseResult(raw json.RawMessage) *core.Result {
	res := &core.Result{}
	if len(raw) == 0 || string(raw) == "null" {
		return res
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		res.ForLLM = s
		return res
	}
	res.ForLLM = string(raw)
	var v any
	if json.Unmarshal(raw, &v) == nil {
		res.Data = v
	}
	return res
}

// prompt runs the user_prompt hooks. A refusal blocks the prompt; so does
// a rewrite, which no agent's prompt hook can apply: the prompt it would
// replace must not go on unchanged.
func prompt(ctx context.Context, cfg Config, ev *Event) (Answer, error) {
	if cfg.Prompt == nil {
		return Answer{}, nil
	}
	p, err := cfg.Prompt(ctx, ev.Prompt)
	if err != nil {
		return Answer{Verdict: core.VerdictDeny, Reason: err.Error()}, nil
	}
	if p != ev.Prompt {
		return Answer{Verdict: core.VerdictDeny, Reason: fmt.Sprintf("a user_prompt hook rewrote the prompt to %q, which %s cannot apply; submit that prompt instead", clipString(p), cfg.Protocol.Name())}, nil
	}
	return Answer{}, nil
}

func clipString(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return strings.TrimSpace(s)
}
