package main

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/internal/termsafe"
)

// The model's text streams in pieces that may cut an escape sequence or
// a character in two; what reaches the terminal is the same as for the
// text in one piece, wherever the cuts fall.
func TestDisplayStreamsCutSequences(t *testing.T) {
	text := "ok \x1b]52;c;Y3Vy\x07 é\u202e\U000e0041\x1b[8m done"
	want := termsafe.String(text) + "\n[echo] hi\n"
	for cut := 1; cut < len(text); cut++ {
		var b strings.Builder
		w := terminalSafe(&b)
		show := agentsh.NewDisplay(w)
		show(agent.Event{Type: "text", Text: text[:cut]})
		show(agent.Event{Type: "text", Text: text[cut:]})
		show(agent.Event{Type: "tool_output", Tool: "echo", Text: "hi"})
		flushTerminal(w)
		if b.String() != want {
			t.Fatalf("cut at %d: shown %q, want %q", cut, b.String(), want)
		}
	}
}

// terminalSafe wraps a writer once.
func TestTerminalSafeWrapsOnce(t *testing.T) {
	w := terminalSafe(&strings.Builder{})
	if _, ok := w.(*termsafe.Writer); !ok {
		t.Fatalf("terminalSafe of a buffer is %T, want a termsafe.Writer", w)
	}
	if terminalSafe(w) != w {
		t.Error("terminalSafe spells out twice")
	}
}
