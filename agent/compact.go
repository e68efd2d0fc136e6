package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentsh/agentsh/provider"
)

// Compaction keeps a conversation within the model's context window.
// Before each request of a Run, the request's size is estimated (see
// EstimateTokens); when it passes the threshold of the context window
// (WithCompactThreshold, DefaultCompactThreshold of ContextWindow), the
// conversation is compacted, and Compact does it when asked. A model whose
// window is unknown (KnownContextWindow) is never compacted automatically.
//
// What is kept word for word:
//
//   - the system prompt, with the project rules and the skills' listing:
//     it travels in Request.System, never among the messages, so
//     compaction does not touch it;
//   - every text given to Pin, in every compaction;
//   - the latest user request (the last user message that is not a
//     compaction's summary);
//   - the recent tail: whole groups of messages from the end (an
//     assistant message with tool calls and all their results are one
//     group: a result is never separated from its call, which providers
//     reject) while they fit in a quarter of the threshold (of the
//     current estimate when the window is unknown), and always at least
//     the last group, whose results the model has yet to read;
//   - the messages a before_compact hook pins, with their groups.
//
// The other messages are replaced by a summary: a before_compact hook's
// (CompactData.Summary), or else the model's answer to a separate
// request (SummaryInstruction as its system prompt, the messages as a
// transcript in one user message, and no tools: a transcript needs none,
// and some providers refuse tool calls in a request without tool
// definitions). That request is a model request like the others: the
// budgets admit it and its usage is charged to the Run, but it runs no
// before_model or after_model hooks (those see the conversation's own
// requests); before_compact stands for them.
//
// The compacted conversation is, in order:
//
//	user: compactHeader, the pinned texts, the summary
//	the pinned groups, the latest user request and the tail, in their order
//
// The summary goes in a user message because only the system prompt may
// sit above the conversation and it must stay as it is; the conversation
// then starts with the user, as Anthropic requires, and the messages kept
// after it are whole groups in their original order, so roles alternate as
// they did (Anthropic's adapter joins consecutive user messages, such as
// the summary and a kept request, into one turn, and tool results come
// first in the turn they share with text). The pinned texts come before
// the summary, so that part of the message stays the same from one
// compaction to the next.
//
// A before_compact hook that fails, panics or pins a message that does
// not exist stops the compaction and the Run with its error, and leaves the
// conversation as it was: the hook may exist to keep something out of the
// summary, so it fails closed, like the other gating hooks.

// SummaryInstruction is the system prompt of the summary request.
const SummaryInstruction = "You summarise the earlier part of a conversation between a user and an agent that works through tools, " +
	"so that the agent can carry on the work from your summary alone. Keep every request and instruction of the user, " +
	"with every constraint and preference they set; the decisions made and why; the files, commands and other things " +
	"inspected or changed, and what was found; errors met and how they were handled; and what remains to be done. " +
	"Leave out tool output that is no longer needed. Write plain text, at most about 500 words, and reply with the summary only."

// compactHeader opens the message that holds the summary; a user message
// that starts with it is a summary, never the latest user request.
const compactHeader = "[The conversation so far was compacted to fit the model's context window: " +
	"the pinned instructions and the messages after this one are kept word for word; the rest is summarised here.]"

// transcriptCap bounds each message's text in the summary request's
// transcript, in bytes; what is cut is counted.
const transcriptCap = 2000

// ErrNestedCompact is the error of Compact called from inside a Run of
// the same agent.
var ErrNestedCompact = errors.New("the agent is answering a prompt: compact() from a tool, hook or model function would change the conversation under it; call it from the top level of the script, or use :compact between prompts")

// Compaction describes one compaction. When Summarised is 0 there was
// nothing to compact and the conversation did not change.
type Compaction struct {
	// Reason is "threshold" (automatic) or "asked" (Compact).
	Reason string
	// MessagesBefore and MessagesAfter are the conversation's lengths;
	// TokensBefore and TokensAfter the next request's estimated size.
	MessagesBefore, MessagesAfter int
	TokensBefore, TokensAfter     int
	// Summarised counts the messages the summary replaced; Pinned those
	// a before_compact hook kept.
	Summarised, Pinned int
	// Summary is the summary's text.
	Summary string
	// Usage is the summary request's, when one was made.
	Usage provider.Usage
}

// Pin keeps text word for word in every later compaction of the
// conversation: the message that holds the summary carries every pinned
// text, before the summary. Pin does not add text to the conversation;
// pin what the conversation says and must not lose (an instruction given
// in a prompt). Empty text and a text pinned already are ignored. Pinned
// texts outlive Reset. Safe for concurrent use.
func (a *Agent) Pin(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pins {
		if p == text {
			return
		}
	}
	a.pins = append(a.pins, text)
}

// Pins returns the pinned texts, in the order they were pinned. Safe for
// concurrent use.
func (a *Agent) Pins() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.pins...)
}

// Compact compacts the conversation now, whatever its size (the REPL's
// :compact, a script's compact()). It waits for a Run in progress to end,
// and fails with ErrNestedCompact when called from inside one. A model
// whose window is unknown is compacted too: the tail kept is then a
// quarter of the current estimate.
func (a *Agent) Compact(ctx context.Context) (*Compaction, error) {
	if a.inRun(ctx) {
		return nil, ErrNestedCompact
	}
	select {
	case a.running <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.running }()
	// Outside a Run nothing else commits the replacement to the session.
	defer a.journalEndRun()
	// Hooks of the compaction that ask() get ErrNestedRun, as in a Run.
	ctx = a.agentContext(ctx)
	return a.compact(ctx, a.Provider(), 0, &Reply{}, "asked", a.EstimateTokens())
}

// compactIfNeeded compacts the conversation before a request that would
// come near the model's context window.
func (a *Agent) compactIfNeeded(ctx context.Context, p provider.Provider, turn int, reply *Reply) error {
	limit := a.compactLimit()
	if limit <= 0 {
		return nil
	}
	est := a.EstimateTokens()
	if est <= limit {
		return nil
	}
	_, err := a.compact(ctx, p, turn, reply, "threshold", est)
	return err
}

// span is the messages [start, end) of a group: one message, or an
// assistant message with tool calls and the tool results after it.
type span struct{ start, end int }

func groupsOf(msgs []provider.Message) []span {
	var out []span
	for i := 0; i < len(msgs); {
		j := i + 1
		if msgs[i].Role == provider.RoleAssistant && len(msgs[i].ToolCalls) > 0 {
			for j < len(msgs) && msgs[j].Role == provider.RoleTool {
				j++
			}
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

func isSummary(m *provider.Message) bool {
	return m.Role == provider.RoleUser && strings.HasPrefix(m.Content, compactHeader)
}

// compactPlan is what a compaction keeps and what it summarises.
type compactPlan struct {
	kept []bool // by message index: kept word for word
	cand []int  // message indexes a summary would replace, in order
	// groupOf maps a message index to its group.
	groupOf []span
}

// planCompaction chooses the latest user request and the tail of msgs
// (within tailBudget tokens, at least the last group); the rest are the
// candidates.
func planCompaction(msgs []provider.Message, tailBudget int) compactPlan {
	pl := compactPlan{kept: make([]bool, len(msgs)), groupOf: make([]span, len(msgs))}
	groups := groupsOf(msgs)
	for _, g := range groups {
		for i := g.start; i < g.end; i++ {
			pl.groupOf[i] = g
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleUser && !isSummary(&msgs[i]) {
			pl.kept[i] = true
			break
		}
	}
	tokens := 0
	for k := len(groups) - 1; k >= 0; k-- {
		g := groups[k]
		t := tokensOf(messagesBytes(msgs[g.start:g.end]))
		if k < len(groups)-1 && tokens+t > tailBudget {
			break
		}
		tokens += t
		for i := g.start; i < g.end; i++ {
			pl.kept[i] = true
		}
	}
	for i := range msgs {
		if !pl.kept[i] {
			pl.cand = append(pl.cand, i)
		}
	}
	return pl
}

// compact replaces the summarisable messages of the conversation by a
// summary; est is the next request's estimate before it.
func (a *Agent) compact(ctx context.Context, p provider.Provider, turn int, reply *Reply, reason string, est int) (*Compaction, error) {
	a.mu.Lock()
	msgs := a.messages[:len(a.messages):len(a.messages)]
	pins := append([]string(nil), a.pins...)
	a.mu.Unlock()
	c := &Compaction{Reason: reason, MessagesBefore: len(msgs), MessagesAfter: len(msgs), TokensBefore: est, TokensAfter: est}

	tailBudget := a.compactLimit() / 4
	if tailBudget <= 0 {
		tailBudget = est / 4
	}
	pl := planCompaction(msgs, tailBudget)
	fresh := 0 // candidates that are not an earlier summary
	for _, i := range pl.cand {
		if !isSummary(&msgs[i]) {
			fresh++
		}
	}
	if fresh == 0 {
		return c, nil // nothing new to summarise
	}

	cd := &CompactData{Messages: make([]provider.Message, len(pl.cand))}
	for k, i := range pl.cand {
		cd.Messages[k] = msgs[i]
	}
	if err := a.fire(ctx, &LifecycleData{Event: BeforeCompact, Turn: turn, Compact: cd}); err != nil {
		return nil, err
	}
	for _, k := range cd.Pin {
		if k < 0 || k >= len(pl.cand) {
			return nil, fmt.Errorf("before_compact: a hook pinned message %d, but there are %d messages to compact (indexes 0 to %d); the conversation was not compacted", k, len(pl.cand), len(pl.cand)-1)
		}
		g := pl.groupOf[pl.cand[k]]
		for i := g.start; i < g.end; i++ {
			if !pl.kept[i] {
				pl.kept[i] = true
				c.Pinned++
			}
		}
	}
	var gone []provider.Message // what the summary replaces
	for _, i := range pl.cand {
		if !pl.kept[i] {
			gone = append(gone, msgs[i])
		}
	}
	if len(gone) == 0 {
		c.Pinned = 0
		return c, nil // the hooks pinned everything
	}

	summary := strings.TrimSpace(cd.Summary)
	if summary == "" {
		var err error
		if summary, c.Usage, err = a.summarise(ctx, p, turn, reply, gone); err != nil {
			return nil, err
		}
	}

	out := make([]provider.Message, 0, len(msgs)-len(gone)+1)
	out = append(out, provider.Message{Role: provider.RoleUser, Content: summaryMessage(pins, summary)})
	for i := range msgs {
		if pl.kept[i] {
			out = append(out, msgs[i])
		}
	}
	c.MessagesAfter, c.Summarised, c.Summary = len(out), len(gone), summary
	c.TokensAfter = a.requestTokens(out)
	a.replaceConversation(out, "compact")
	a.emit(Event{Type: "compaction", Turn: turn, Reason: reason, MessagesBefore: c.MessagesBefore, MessagesAfter: c.MessagesAfter,
		TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, Summarised: c.Summarised, Pinned: c.Pinned,
		InputTokens: c.Usage.InputTokens, OutputTokens: c.Usage.OutputTokens,
		CacheReadTokens: c.Usage.CacheReadTokens, CacheWriteTokens: c.Usage.CacheWriteTokens})
	return c, nil
}

// summaryMessage is the text of the message that holds the summary.
func summaryMessage(pins []string, summary string) string {
	var b strings.Builder
	b.WriteString(compactHeader)
	if len(pins) > 0 {
		b.WriteString("\n\nPinned instructions, word for word:")
		for _, p := range pins {
			b.WriteString("\n\n")
			b.WriteString(p)
		}
	}
	b.WriteString("\n\nSummary of the earlier conversation:\n\n")
	b.WriteString(summary)
	return b.String()
}

// summarise asks the model for a summary of msgs.
func (a *Agent) summarise(ctx context.Context, p provider.Provider, turn int, reply *Reply, msgs []provider.Message) (string, provider.Usage, error) {
	if p == nil {
		return "", provider.Usage{}, fmt.Errorf("compaction needs a summary: %w, or supply the summary with a before_compact hook", ErrNoProvider)
	}
	if err := a.admitRequest(ctx, p, reply); err != nil {
		return "", provider.Usage{}, err
	}
	a.mu.Lock()
	model := a.cfg.model
	a.mu.Unlock()
	req := provider.Request{Model: model, System: SummaryInstruction,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "The conversation to summarise:\n\n" + transcript(msgs)}}}
	priced := a.modelName(p)
	resp, err := p.Complete(ctx, req, nil)
	if err != nil {
		return "", provider.Usage{}, fmt.Errorf("compaction: the summary request failed: %w", err)
	}
	a.charge(priced, &resp, reply)
	summary := strings.TrimSpace(resp.Content)
	if summary == "" {
		return "", resp.Usage, fmt.Errorf("compaction: the model's summary was empty (%d tool calls, stop reason %q); the conversation was not compacted: supply the summary with a before_compact hook, or a scripted model answers a request without tools with text", len(resp.ToolCalls), resp.StopReason)
	}
	return summary, resp.Usage, nil
}

// transcript writes msgs as text for the summary request, each message's
// text cut to transcriptCap bytes.
func transcript(msgs []provider.Message) string {
	var b strings.Builder
	for k, m := range msgs {
		if k > 0 {
			b.WriteString("\n\n")
		}
		switch m.Role {
		case provider.RoleTool:
			what := "result"
			if m.IsError {
				what = "error"
			}
			fmt.Fprintf(&b, "tool %s of %s (%s): %s", what, m.Name, m.ToolCallID, capText(m.Content))
		case provider.RoleAssistant:
			b.WriteString("assistant: " + capText(m.Content))
			for _, tc := range m.ToolCalls {
				args := string(tc.Args)
				if tc.InvalidArgs != "" {
					args = tc.InvalidArgs
				}
				fmt.Fprintf(&b, "\nassistant called %s (%s) with %s", tc.Name, tc.ID, capText(args))
			}
		default:
			b.WriteString(m.Role + ": " + capText(m.Content))
		}
	}
	return b.String()
}

// capText cuts s to transcriptCap bytes, at a character's start, saying
// how much was cut.
func capText(s string) string {
	if len(s) <= transcriptCap {
		return s
	}
	n := transcriptCap
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s [... %d more bytes]", s[:n], len(s)-n)
}
