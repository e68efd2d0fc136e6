package hookadapter

import (
	"context"
	"encoding/json"
	"path"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/applypatch"
)

// decidePatch decides each file of an apply_patch call as the write it
// is, so that a policy written for agentsh's file tools holds for patches
// too: an added file, a move's target and a deleted file as write_file,
// each hunk of an update as edit_file (its old and new text). The
// strongest verdict of them and of the patch itself (r, a) wins; between
// equals the first reason stays.
func decidePatch(ctx context.Context, cfg Config, r *executor.Ruling, a Answer) (Answer, error) {
	var args struct {
		Patch   string `json:"patch"`
		Workdir string `json:"workdir"`
	}
	if err := json.Unmarshal(r.Args, &args); err != nil {
		return a, err
	}
	changes, err := applypatch.Parse(args.Patch)
	if err != nil {
		// The canonical call read it: this cannot fail; refuse anyway.
		return Answer{Verdict: core.VerdictDeny, Reason: "the patch cannot be read: " + err.Error()}, nil
	}
	at := func(p string) string {
		if path.IsAbs(p) || args.Workdir == "" {
			return p
		}
		return path.Join(args.Workdir, p)
	}
	var calls []core.Call
	write := func(p string, content string) {
		b, _ := marshal(map[string]string{"path": at(p), "content": content})
		calls = append(calls, core.Call{Name: "write_file", Args: b})
	}
	for _, c := range changes {
		switch {
		case c.Op == applypatch.Add:
			write(c.Path, c.Content)
		case c.Op == applypatch.Delete:
			write(c.Path, "")
		default:
			for _, h := range c.Hunks {
				b, _ := marshal(map[string]string{"path": at(c.Path), "old_string": h.Old, "new_string": h.New})
				calls = append(calls, core.Call{Name: "edit_file", Args: b})
			}
			if c.MoveTo != "" {
				write(c.MoveTo, "")
			}
		}
	}
	for _, call := range calls {
		if a.Verdict == core.VerdictDeny {
			break
		}
		call.Origin = core.OriginHook
		if b := verdictOf(cfg.Exec.Decide(ctx, call)); b.Verdict > a.Verdict {
			a = b
		}
	}
	return a, ctx.Err()
}
