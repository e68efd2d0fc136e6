package agentapi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// installCompactAPI adds pin(text) and compact() to the script API; the
// before_compact event comes with the other lifecycle events.
func (s *Session) installCompactAPI(h *script.Host) error {
	h.AddBuiltin(script.Builtin{Name: "pin", Doc: "Keeps text word for word in every compaction of the conversation.",
		Params: []script.Param{{Name: "text", Kind: script.String}}, Fn: s.builtinPin})
	h.AddBuiltin(script.Builtin{Name: "compact", Doc: "Compacts the conversation now: a summary replaces all but the pinned, the latest request and the recent tail.",
		Fn: s.builtinCompact})
	return nil
}

func (s *Session) builtinPin(ctx context.Context, args script.Args) (any, error) {
	text, err := args.String("pin", "text")
	if err != nil {
		return nil, err
	}
	s.agent.Pin(text)
	return nil, nil
}

// builtinCompact is compact(): {"summarised", "pinned", "messages_before",
// "messages_after", "tokens_before", "tokens_after", "summary"}.
func (s *Session) builtinCompact(ctx context.Context, args script.Args) (any, error) {
	c, err := s.agent.Compact(ctx)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	return script.Record{"summarised": int64(c.Summarised), "pinned": int64(c.Pinned),
		"messages_before": int64(c.MessagesBefore), "messages_after": int64(c.MessagesAfter),
		"tokens_before": int64(c.TokensBefore), "tokens_after": int64(c.TokensAfter), "summary": c.Summary}, nil
}

// compactEventValue adds what a before_compact hook sees: "messages" (the
// messages to compact) and "summary" (an earlier hook's, or "").
func compactEventValue(d *agent.LifecycleData, v map[string]any) {
	if d.Compact == nil {
		return
	}
	msgs := make([]any, len(d.Compact.Messages))
	for i, m := range d.Compact.Messages {
		msgs[i] = messageValue(m)
	}
	v["messages"] = msgs
	v["summary"] = d.Compact.Summary
}

// applyCompact carries out a before_compact hook's {"summary": text,
// "pin": [...]}. A pin is one of event.messages (the dict itself) or its
// position in the list counted from 0, in every language.
func applyCompact(d *agent.LifecycleData, out map[string]any) error {
	if d.Compact == nil {
		return fmt.Errorf("before_compact: no compaction to change")
	}
	c := d.Compact
	for _, k := range slices.Sorted(maps.Keys(out)) {
		switch k {
		case "summary":
			s, ok := out[k].(string)
			if !ok {
				return fmt.Errorf("before_compact: summary must be a string, got %s", script.Quote(out[k]))
			}
			c.Summary = s
		case "pin":
			list, ok := asList(out[k])
			if !ok {
				return fmt.Errorf("before_compact: pin must be a list of messages or positions, got %s", script.Quote(out[k]))
			}
			for i, e := range list {
				n, err := pinIndex(c.Messages, e)
				if err != nil {
					return fmt.Errorf("before_compact: pin[%d]: %w", i, err)
				}
				c.Pin = append(c.Pin, n)
			}
		default:
			return fmt.Errorf("before_compact: unexpected key %q; want summary and pin", k)
		}
	}
	return nil
}

// pinIndex finds what a hook pinned among msgs: a position, or a message
// (by role, content, tool_call_id and its calls' ids; the first equal one).
func pinIndex(msgs []provider.Message, v any) (int, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 || x >= int64(len(msgs)) {
			return 0, fmt.Errorf("position %d, but event.messages has %d messages (positions 0 to %d)", x, len(msgs), len(msgs)-1)
		}
		return int(x), nil
	case map[string]any:
		want := pinKeyOf(x)
		for i, m := range msgs {
			if pinKey(m) == want {
				return i, nil
			}
		}
		return 0, fmt.Errorf("a message that is not one of event.messages")
	}
	return 0, fmt.Errorf("got %s; want one of event.messages or its position", script.Quote(v))
}

func pinKey(m provider.Message) string {
	ids := make([]string, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		ids[i] = tc.ID
	}
	return strings.Join([]string{m.Role, m.Content, m.ToolCallID, strings.Join(ids, ",")}, "\x00")
}

func pinKeyOf(v map[string]any) string {
	var m provider.Message
	m.Role, _ = v["role"].(string)
	m.Content, _ = v["content"].(string)
	m.ToolCallID, _ = v["tool_call_id"].(string)
	calls, _ := asList(v["tool_calls"])
	for _, c := range calls {
		cm, _ := c.(map[string]any)
		id, _ := cm["id"].(string)
		m.ToolCalls = append(m.ToolCalls, provider.ToolCall{ID: id})
	}
	return pinKey(m)
}
