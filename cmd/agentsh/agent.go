package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/internal/userfile"
)

// endGrace bounds the session_end hooks of a run a signal or --timeout
// has already ended: short of the stopper's exit, so that the result is
// still written.
const endGrace = 500 * time.Millisecond

// endSession ends the conversation of a run that is done, for good: its
// session_end hooks run with ctx, or, when ctx has already ended (a
// signal, --timeout), for at most endGrace. The error is a hook's (or the
// session file's). Closing the shell does not run them again.
func (a *app) endSession(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	} else if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), endGrace)
		defer cancel()
	}
	return a.sh.Agent().End(ctx)
}

// parseMCPFlag reads --mcp NAME=COMMAND ARGS... or --mcp NAME=URL.
func parseMCPFlag(v string) (agentsh.MCPServer, error) {
	name, target, ok := strings.Cut(v, "=")
	if !ok || name == "" || strings.TrimSpace(target) == "" {
		return agentsh.MCPServer{}, usagef("--mcp: got %q, want NAME=COMMAND [ARGS...] or NAME=http://HOST/PATH", v)
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return agentsh.MCPServer{Name: name, URL: target}, nil
	}
	return agentsh.MCPServer{Name: name, Command: strings.Fields(target)}, nil
}

// applyMCPReadOnly gives the --mcp servers the tools --mcp-read-only
// NAME=TOOL[,TOOL...] declares read-only.
func (o *options) applyMCPReadOnly() error {
	for _, v := range o.mcp.readOnly {
		name, list, ok := strings.Cut(v, "=")
		var tools []string
		for _, t := range strings.Split(list, ",") {
			if t = strings.TrimSpace(t); t != "" {
				tools = append(tools, t)
			}
		}
		if !ok || name == "" || len(tools) == 0 {
			return usagef("--mcp-read-only: got %q, want NAME=TOOL[,TOOL...] naming tools of --mcp NAME=...", v)
		}
		found := false
		for i := range o.mcpServers {
			if o.mcpServers[i].Name == name {
				o.mcpServers[i].ReadOnly = append(o.mcpServers[i].ReadOnly, tools...)
				found = true
			}
		}
		if !found {
			return usagef("--mcp-read-only %s: no --mcp %s=... is given; name a server of --mcp (servers of mcp_server(...) take read_only = [...])", v, name)
		}
	}
	return nil
}

// recordFile is the --record file. It is created (or emptied) at the
// first exchange it records, so a run that fails before it reaches the
// model leaves an existing recording as it was. An error opening it is
// the error of that exchange, and of every later one.
type recordFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

func newRecordFile(path string) *recordFile { return &recordFile{path: path} }

// checkRecordPath finds at start what would keep --record from writing
// path, short of creating it (which would empty a recording kept there):
// a directory that does not exist, or a path that is not a regular file.
func checkRecordPath(path string) error {
	dir := filepath.Dir(path)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("--record %s: the directory %s does not exist; create it, or give a file in another with --record FILE", path, dir)
	case err != nil:
		return usagef("--record %s: %v; give a file in a directory that can be written with --record FILE", path, err)
	case !fi.IsDir():
		return usagef("--record %s: %s is %s, not a directory; give a file in a directory with --record FILE", path, dir, userfile.Kind(fi.Mode()))
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return usagef("--record %s is %s, not a regular file; give the path of a file to write with --record FILE", path, userfile.Kind(fi.Mode()))
	}
	return nil
}

func (r *recordFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil && r.err == nil {
		r.f, r.err = os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if r.err != nil {
			r.err = fmt.Errorf("--record %s: %w; give a file that can be written with --record FILE", r.path, errors.Unwrap(r.err))
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.f.Write(p)
}

// Close closes the file if an exchange opened it.
func (r *recordFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
