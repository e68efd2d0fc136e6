package agentapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
	"github.com/agentsh/agentsh/script"
)

// Config sets up the agent of a host.
type Config struct {
	// Provider answers ask() until a script calls model() or provider();
	// nil means none yet.
	Provider provider.Provider
	// Record, when set, receives every exchange with the provider as JSON
	// lines (--record), for replay:FILE.
	Record io.Writer
	// Observer receives the agent's events (streamed text, tool output).
	Observer func(agent.Event)
	// SystemPrompt is the first section of the system prompt.
	SystemPrompt string
	// Extensions add prompt sections, tools and hooks (rules, skills,
	// prompt caching).
	Extensions []core.Extension
	// MaxTurns bounds each ask(); 0 means agent.DefaultMaxTurns.
	MaxTurns int
	// ContextWindow is the model's context window in tokens
	// (--context-window); 0 means the known default (agent.KnownContextWindow).
	ContextWindow int
	// Open opens provider("SPEC"); nil means provider.Open, which reaches
	// the adapters the program imports (see provider/all).
	Open func(spec string) (provider.Provider, error)
	// MCP connects mcp_server(...); nil leaves mcp_server out.
	MCP MCPConnector
	// NoTask leaves out the task tool, which runs a subagent (agentsh
	// --no-builtins); spawn() stays.
	NoTask bool
	// Sessions saves every conversation (see session.go); nil saves none.
	Sessions *session.Store
	// Budget is what the agent's runs may spend (see budget.go); nil means
	// one without limits, priced by the built-in table.
	Budget *agent.Budget
}

// MCPConnector connects an MCP server and registers its tools, returning
// their names.
type MCPConnector interface {
	Add(ctx context.Context, cfg MCPServer) ([]string, error)
}

// MCPServer is what mcp_server(name, command=[...], url=..., env=[...],
// read_only=[...]) asks for. ReadOnly names the server's tools the script
// declares read-only; the server's own hints declare nothing.
type MCPServer struct {
	Name     string
	Command  []string
	URL      string
	Env      []string
	ReadOnly []string
}

// Session is the agent of one host.
type Session struct {
	cfg   Config
	agent *agent.Agent

	mu   sync.Mutex
	name string // the provider's name, for :model

	outcomes outcomes // how the top-level runs ended (outcome.go)
}

// Install creates the host's agent on its executor and adds model,
// provider, ask, on (and mcp_server when cfg.MCP is set) to its script
// API. Call it before creating interpreters on the host.
func Install(h *script.Host, cfg Config) (*Session, error) {
	if cfg.Open == nil {
		cfg.Open = provider.Open
	}
	opts := []agent.Option{agent.WithExecutor(h.Executor()), agent.WithExtensions(cfg.Extensions...),
		agent.WithSystemPrompt(cfg.SystemPrompt), agent.WithContextWindow(cfg.ContextWindow), agent.WithBudget(cfg.budget())}
	if cfg.MaxTurns > 0 {
		opts = append(opts, agent.WithMaxTurns(cfg.MaxTurns))
	}
	if cfg.Observer != nil {
		opts = append(opts, agent.WithObserver(cfg.Observer))
	}
	opts = append(opts, sessionOptions(cfg)...)
	a, err := agent.New(opts...)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, agent: a}
	if cfg.Provider != nil {
		s.use(cfg.Provider)
	}
	h.AddBuiltin(script.Builtin{Name: "model", Doc: "Answers ask() with fn(messages, tools), a scripted model.",
		Params: []script.Param{{Name: "fn", Kind: script.Function}}, Fn: s.builtinModel})
	h.AddBuiltin(script.Builtin{Name: "provider", Doc: "Opens a provider by spec, such as \"replay:FILE\", and uses it.",
		Params: []script.Param{{Name: "spec", Kind: script.String}}, Fn: s.builtinProvider})
	// ask is declared by package script: the verdict inside a before hook,
	// this agent everywhere else.
	h.SetAsk(s.scriptAsk)
	// on is declared by package script; the agent adds its lifecycle
	// events to the ones it accepts.
	for _, ev := range agent.LifecycleEvents {
		h.AddEvent(script.Event{Name: string(ev), On: s.onEvent(ev)})
	}
	// The parts of long and unattended runs, each in its own file.
	for _, install := range []func(*script.Host) error{s.installSessionAPI, s.installBudgetAPI, s.installCompactAPI, s.installSubagentAPI} {
		if err := install(h); err != nil {
			return nil, err
		}
	}
	if cfg.MCP != nil {
		h.AddBuiltin(script.Builtin{Name: "mcp_server", Doc: "Connects an MCP server and registers its tools.",
			Params: []script.Param{{Name: "name", Kind: script.String}, {Name: "command", Optional: true}, {Name: "url", Kind: script.String, Optional: true}, {Name: "env", Optional: true}, {Name: "read_only", Optional: true}}, Fn: s.builtinMCP})
	}
	return s, nil
}

// Agent returns the session's agent.
func (s *Session) Agent() *agent.Agent { return s.agent }

// use makes p the provider, recording its exchanges when asked to.
func (s *Session) use(p provider.Provider) {
	s.mu.Lock()
	s.name = p.Name()
	s.mu.Unlock()
	if s.cfg.Record != nil {
		p = replay.Record(p, s.cfg.Record)
	}
	s.agent.SetProvider(p, "")
}

// ProviderName names the provider in use, or "".
func (s *Session) ProviderName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// SetProvider opens spec and uses it (the REPL's :model).
func (s *Session) SetProvider(spec string) error {
	p, err := s.cfg.Open(spec)
	if err != nil {
		return err
	}
	s.use(p)
	return nil
}

// Ask runs one prompt (the REPL's :ask).
func (s *Session) Ask(ctx context.Context, prompt string, maxTurns int) (*agent.Reply, error) {
	return s.agent.Run(ctx, prompt, agent.MaxTurns(maxTurns))
}

// NewConversation forgets the conversation so far (the REPL's :new): the
// next ask starts a new session, with session_start hooks, after this one
// ended with its session_end hooks. The provider, tools and hooks stay.
// The error is a session_end hook's; the conversation is forgotten anyway.
func (s *Session) NewConversation(ctx context.Context) error {
	return s.agent.Reset(ctx)
}

// End ends the conversation for good (see agent.Agent.End), before
// Close.
func (s *Session) End(ctx context.Context) error { return s.agent.End(ctx) }

// Close ends the session (session_end hooks). The executor, and the
// extensions the agent installed into it, belong to the host's owner.
func (s *Session) Close() error { return s.agent.Close() }

func (s *Session) builtinModel(ctx context.Context, args script.Args) (any, error) {
	fn, err := args.Func("model", "fn")
	if err != nil {
		return nil, err
	}
	h := &history{}
	s.use(provider.Func{Label: "scripted:" + fn.Name(), Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		out, err := fn.Call(script.LeaveBeforeHook(ctx), h.value(req), toolsValue(req.Tools))
		if err != nil {
			return provider.Response{}, err
		}
		return responseOf(out)
	}})
	return nil, nil
}

func (s *Session) builtinProvider(ctx context.Context, args script.Args) (any, error) {
	spec, err := args.String("provider", "spec")
	if err != nil {
		return nil, err
	}
	if err := s.SetProvider(spec); err != nil {
		return nil, fmt.Errorf("provider: %w", err)
	}
	return s.ProviderName(), nil
}

// scriptAsk is ask(prompt) outside before hooks.
func (s *Session) scriptAsk(ctx context.Context, req script.AskRequest) (any, error) {
	opts := []agent.RunOption{agent.MaxTurns(req.MaxTurns)}
	if !req.Stream {
		opts = append(opts, agent.WithoutTextEvents())
	}
	schemaOpt, err := askSchema(req.Schema)
	if err != nil {
		return nil, fmt.Errorf("ask: %w", err)
	}
	if schemaOpt != nil {
		opts = append(opts, schemaOpt)
	}
	reply, err := s.agent.Run(ctx, req.Prompt, opts...)
	s.outcomes.add(reply, err, schemaOpt != nil)
	if err != nil {
		return nil, fmt.Errorf("ask: %w", err)
	}
	return replyValue(reply), nil
}

// replyValue is what ask() returns: the reply's text, turns, tool_calls
// (the number run), stop, dropped (the calls cut off by the token limit,
// which did not run: [{"id", "name"}]), denials (the calls that were
// refused: [{"call_id", "tool", "hook", "reason", "agent"}]), usage
// ({"input_tokens", "output_tokens", "cache_read_tokens",
// "cache_write_tokens"}), cost (US dollars, None when the price table does
// not know the model), data (the answer decoded, with a schema; else
// None), violations (why the last answer did not validate against the
// schema: [{"pointer", "message"}]), session (the session id, or ""),
// agent (the agent's id), parent_agent (its parent's, for a subagent's
// reply from spawn()) and exhausted (with stop "budget": which budget,
// its limit, what was spent and how to raise it; else "").
func replyValue(r *agent.Reply) script.Record {
	dropped := make([]any, len(r.Dropped))
	for i, c := range r.Dropped {
		dropped[i] = map[string]any{"id": c.ID, "name": c.Name}
	}
	denials := make([]any, len(r.Denials))
	for i, d := range r.Denials {
		denials[i] = map[string]any{"call_id": d.CallID, "tool": d.Tool, "hook": d.Hook, "reason": d.Reason, "agent": d.Agent}
	}
	var cost any
	if r.CostKnown {
		cost = r.Cost
	}
	return script.Record{"text": r.Text, "turns": int64(r.Turns), "tool_calls": int64(r.ToolCalls), "stop": r.Stop,
		"dropped": dropped, "denials": denials, "usage": usageValue(r.Usage), "cost": cost, "data": r.Data,
		"violations": violationsValue(r.Violations), "session": r.SessionID, "agent": r.AgentID, "parent_agent": r.ParentID,
		"exhausted": r.Exhausted}
}

// usageValue is token usage as scripts see it.
func usageValue(u provider.Usage) map[string]any {
	return map[string]any{"input_tokens": int64(u.InputTokens), "output_tokens": int64(u.OutputTokens),
		"cache_read_tokens": int64(u.CacheReadTokens), "cache_write_tokens": int64(u.CacheWriteTokens)}
}

// onEvent installs on(ev, fn): fn(event) runs at the lifecycle event.
func (s *Session) onEvent(ev agent.LifecycleEvent) func(script.Func) error {
	return func(fn script.Func) error {
		return s.agent.On(agent.LifecycleHook{Name: fn.Name(), Event: ev, Func: func(ctx context.Context, d *agent.LifecycleData) error {
			out, err := fn.Call(script.LeaveBeforeHook(ctx), eventValue(d))
			if err != nil {
				return err
			}
			return apply(d, out)
		}})
	}
}

func (s *Session) builtinMCP(ctx context.Context, args script.Args) (any, error) {
	name, err := args.String("mcp_server", "name")
	if err != nil {
		return nil, err
	}
	cfg := MCPServer{Name: name}
	if cfg.URL, err = args.String("mcp_server", "url"); err != nil {
		return nil, err
	}
	if cfg.Command, err = stringList(args["command"], "mcp_server", "command"); err != nil {
		return nil, err
	}
	if cfg.Env, err = stringList(args["env"], "mcp_server", "env"); err != nil {
		return nil, err
	}
	if cfg.ReadOnly, err = stringList(args["read_only"], "mcp_server", "read_only"); err != nil {
		return nil, err
	}
	if (len(cfg.Command) == 0) == (cfg.URL == "") {
		return nil, fmt.Errorf("mcp_server %s: give either command = [PROGRAM, ARGS...] or url = \"http://...\"", name)
	}
	names, err := s.cfg.MCP.Add(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("mcp_server %s: %w", name, err)
	}
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out, nil
}

// asList reads a list argument. An empty Lua table arrives as an empty
// object, which here can only mean an empty list.
func asList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case map[string]any:
		if len(x) == 0 {
			return []any{}, true
		}
	}
	return nil, false
}

func stringList(v any, fn, name string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be a list of strings", fn, name)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] must be a string", fn, name, i)
		}
		out[i] = s
	}
	return out, nil
}

// messagesValue is the conversation as scripts see it, the system prompt
// first.
func messagesValue(req provider.Request) []any {
	out := make([]any, 0, len(req.Messages)+1)
	if req.System != "" {
		out = append(out, map[string]any{"role": provider.RoleSystem, "content": req.System})
	}
	for _, m := range req.Messages {
		out = append(out, messageValue(m))
	}
	return out
}

func messageValue(m provider.Message) map[string]any {
	v := map[string]any{"role": m.Role, "content": m.Content}
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			args, err := script.DecodeJSON(tc.Args)
			if err != nil || tc.Args == nil {
				args = map[string]any{}
			}
			calls[i] = map[string]any{"id": tc.ID, "name": tc.Name, "args": args}
		}
		v["tool_calls"] = calls
	}
	if m.Role == provider.RoleTool {
		v["tool_call_id"] = m.ToolCallID
		v["name"] = m.Name
		v["is_error"] = m.IsError
	}
	return v
}

func toolsValue(tools []provider.ToolDef) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		params, err := script.DecodeJSON(t.Parameters)
		if err != nil || t.Parameters == nil {
			params = map[string]any{"type": "object"}
		}
		out[i] = map[string]any{"name": t.Name, "description": t.Description, "parameters": params}
	}
	return out
}

// responseOf reads what a scripted model returned: a string (the answer),
// or {"content": ..., "tool_calls": [{"name", "args", "id"?}], "usage":
// {"input_tokens", "output_tokens", "cache_read_tokens",
// "cache_write_tokens"}}.
func responseOf(v any) (provider.Response, error) {
	switch x := v.(type) {
	case string:
		return provider.Response{Content: x}, nil
	case map[string]any:
		var resp provider.Response
		for k := range x {
			if k != "content" && k != "tool_calls" && k != "usage" {
				return resp, fmt.Errorf("model returned a key %q; want content, tool_calls and usage", k)
			}
		}
		if u, ok := x["usage"]; ok && u != nil {
			usage, err := usageOf(u)
			if err != nil {
				return resp, err
			}
			resp.Usage = usage
		}
		if c, ok := x["content"]; ok && c != nil {
			s, ok := c.(string)
			if !ok {
				return resp, fmt.Errorf("model returned content %s; want a string", script.Quote(c))
			}
			resp.Content = s
		}
		var calls []any
		if tc := x["tool_calls"]; tc != nil {
			var ok bool
			if calls, ok = asList(tc); !ok {
				return resp, fmt.Errorf("model returned tool_calls %s; want a list", script.Quote(tc))
			}
		}
		for i, c := range calls {
			call, err := toolCallOf(c, i)
			if err != nil {
				return resp, err
			}
			resp.ToolCalls = append(resp.ToolCalls, call)
		}
		return resp, nil
	case nil:
		return provider.Response{}, errors.New(`model returned None; return the answer text or {"content": ..., "tool_calls": [...]}`)
	}
	return provider.Response{}, fmt.Errorf("model returned %s; want the answer text or {\"content\": ..., \"tool_calls\": [...]}", script.Quote(v))
}

func toolCallOf(v any, i int) (provider.ToolCall, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d] = %s; want {\"name\": ..., \"args\": {...}}", i, script.Quote(v))
	}
	name, isString := m["name"].(string)
	if m["name"] != nil && !isString {
		return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d] with name %s; want the tool's name as a string", i, script.Quote(m["name"]))
	}
	if name == "" {
		return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d] without a name", i)
	}
	id, isString := m["id"].(string)
	if m["id"] != nil && !isString {
		return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d] with id %s; want a string, or leave it out", i, script.Quote(m["id"]))
	}
	var args json.RawMessage
	switch a := m["args"].(type) {
	case nil:
		args = json.RawMessage(`{}`)
	case string:
		if !json.Valid([]byte(a)) {
			return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d].args %q, which is not valid JSON; give a dict or a JSON object", i, a)
		}
		args = json.RawMessage(a)
	default:
		raw, err := script.EncodeJSON(a)
		if err != nil {
			return provider.ToolCall{}, fmt.Errorf("model returned tool_calls[%d].args: %w", i, err)
		}
		args = raw
	}
	return provider.ToolCall{ID: id, Name: name, Args: args}, nil
}

// eventValue is what an on() hook receives.
func eventValue(d *agent.LifecycleData) map[string]any {
	v := map[string]any{"event": string(d.Event), "turn": int64(d.Turn), "agent": d.Agent, "parent_agent": d.ParentAgent}
	if d.Event == agent.UserPrompt {
		v["prompt"] = d.Prompt
	}
	if d.Request != nil {
		v["request"] = map[string]any{"system": d.Request.System, "messages": messagesValue(provider.Request{Messages: d.Request.Messages}),
			"tools": toolsValue(d.Request.Tools)}
	}
	if d.Response != nil {
		v["response"] = responseValue(*d.Response)
	}
	if d.Reply != nil {
		v["reply"] = map[string]any{"text": d.Reply.Text, "turns": int64(d.Reply.Turns), "tool_calls": int64(d.Reply.ToolCalls)}
	}
	compactEventValue(d, v)
	return v
}

func responseValue(r provider.Response) map[string]any {
	m := messageValue(provider.Message{Role: provider.RoleAssistant, Content: r.Content, ToolCalls: r.ToolCalls})
	delete(m, "role")
	if _, ok := m["tool_calls"]; !ok {
		m["tool_calls"] = []any{}
	}
	return m
}

// apply carries out what an on() hook returned.
func apply(d *agent.LifecycleData, out any) error {
	switch x := out.(type) {
	case nil:
		return nil
	case script.Verdict:
		if x.Verdict == core.VerdictDeny {
			return errors.New(x.Reason)
		}
	case string:
		if d.Event == agent.UserPrompt {
			d.Prompt = x
			return nil
		}
	case map[string]any:
		if d.Event == agent.BeforeModel {
			return editRequest(d.Request, x)
		}
		if d.Event == agent.BeforeCompact {
			return applyCompact(d, x)
		}
	}
	return fmt.Errorf("%s hook returned %s; want None, deny(reason)%s", d.Event, script.Quote(out), allowed(d.Event))
}

func allowed(ev agent.LifecycleEvent) string {
	switch ev {
	case agent.UserPrompt:
		return " or a new prompt"
	case agent.BeforeModel:
		return ` or {"system": ..., "messages": [...]}`
	case agent.BeforeCompact:
		return ` or {"summary": ..., "pin": [...]}`
	}
	return ""
}

// editRequest applies a before_model hook's {"system", "messages"}.
func editRequest(req *provider.Request, edit map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(edit)) {
		switch k {
		case "system":
			s, ok := edit[k].(string)
			if !ok {
				return fmt.Errorf("before_model: system must be a string")
			}
			req.System = s
		case "messages":
			list, ok := asList(edit[k])
			if !ok {
				return fmt.Errorf("before_model: messages must be a list")
			}
			before := req.Messages
			msgs := make([]provider.Message, 0, len(list))
			for i, e := range list {
				m, err := messageOf(e, i)
				if err != nil {
					return err
				}
				if m.Role == provider.RoleSystem {
					continue // the system prompt travels as "system"
				}
				// Scripts see no blocks or cache marks; a message passed
				// through unchanged keeps them.
				if n := len(msgs); n < len(before) && sameMessage(before[n], m) {
					m.Blocks, m.Cache = before[n].Blocks, before[n].Cache
				}
				msgs = append(msgs, m)
			}
			req.Messages = msgs
		default:
			return fmt.Errorf("before_model: unexpected key %q; want system and messages", k)
		}
	}
	return nil
}

// sameMessage compares what scripts see of two messages: equal fields,
// or (arguments written differently, fields scripts do not see) equal
// values.
func sameMessage(a, b provider.Message) bool {
	if sameForScripts(&a, &b) {
		return true
	}
	a.Blocks, a.Cache = nil, false
	return script.Quote(messageValue(a)) == script.Quote(messageValue(b))
}

func messageOf(v any, i int) (provider.Message, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return provider.Message{}, fmt.Errorf("before_model: messages[%d] must be a dict", i)
	}
	var msg provider.Message
	msg.Role, _ = m["role"].(string)
	msg.Content, _ = m["content"].(string)
	msg.ToolCallID, _ = m["tool_call_id"].(string)
	msg.Name, _ = m["name"].(string)
	msg.IsError, _ = m["is_error"].(bool)
	switch msg.Role {
	case provider.RoleSystem, provider.RoleUser, provider.RoleAssistant, provider.RoleTool:
	default:
		return msg, fmt.Errorf("before_model: messages[%d] has role %q; want system, user, assistant or tool", i, msg.Role)
	}
	if calls, ok := asList(m["tool_calls"]); ok {
		for j, c := range calls {
			tc, err := toolCallOf(c, j)
			if err != nil {
				return msg, fmt.Errorf("before_model: messages[%d]: %w", i, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
	}
	return msg, nil
}
