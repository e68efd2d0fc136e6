package main

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/agent"
)

// cmdCompact is :compact: the conversation is compacted now, whatever its
// size. The compaction event shows what it did (compactionLine); when
// there was nothing to compact, this says so.
func (s *replSession) cmdCompact(arg string) {
	if arg != "" {
		fmt.Fprintf(s.a.io.err, ":compact takes no argument, got %q\n", arg)
		return
	}
	s.interruptible(func(ctx context.Context) (string, error) {
		c, err := s.a.sh.Agent().Agent().Compact(ctx)
		if err == nil && c.Summarised == 0 {
			fmt.Fprintf(s.a.io.err, "nothing to compact: the %d messages are the latest request, the recent tail and what is pinned\n", c.MessagesBefore)
		}
		return "", err
	})
}

// compactionLine is how the display shows a compaction event.
func compactionLine(e agent.Event) string {
	s := fmt.Sprintf("[compacted] %d messages -> %d, about %d -> %d tokens: a summary replaced %d",
		e.MessagesBefore, e.MessagesAfter, e.TokensBefore, e.TokensAfter, e.Summarised)
	if e.Pinned > 0 {
		s += fmt.Sprintf(", %d pinned", e.Pinned)
	}
	return s
}
