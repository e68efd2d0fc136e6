package main

import (
	"fmt"
	"os"
)

// openEvents opens --events FILE to append to it (created with mode
// 0600), for mcp serve and hook; app.close closes it.
func (a *app) openEvents() (*os.File, error) {
	f, err := os.OpenFile(a.opts.events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--events: %w; give a file agentsh can append to", err)
	}
	a.eventsFile = f
	return f, nil
}
