package main

import (
	"context"
	"fmt"
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
