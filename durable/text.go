package durable

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// WriteRuns prints runs one a line (id, state, what it runs, when it
// changed), or with asJSON one JSON object a line.
func WriteRuns(w io.Writer, runs []RunInfo, asJSON bool) error {
	if asJSON {
		return writeJSONLines(w, runs)
	}
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no durable runs yet: agentsh run --durable FILE starts one")
		return err
	}
	for _, r := range runs {
		what := r.Spec.Prompt
		if r.Spec.Script != "" {
			what = filepath.Base(r.Spec.Script)
		}
		state := r.State
		switch {
		case r.Outcome != nil:
			state = fmt.Sprintf("done (exit %d)", r.Outcome.ExitCode)
		case len(r.Pending) > 0:
			state = "waiting for " + r.Pending[0].ID
		}
		if _, err := fmt.Fprintf(w, "%-36s %-24s %-19s %s\n", r.ID, state, r.Updated.Format(time.DateTime), oneLine(what, 60)); err != nil {
			return err
		}
	}
	return nil
}

// WriteApprovals prints approvals one a line, or with asJSON one JSON
// object a line.
func WriteApprovals(w io.Writer, list []Approval, asJSON bool) error {
	if asJSON {
		return writeJSONLines(w, list)
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no approvals waiting")
		return err
	}
	for _, a := range list {
		if _, err := fmt.Fprintf(w, "%s  %s  %s %s\n    %s (expires %s)\n", a.ID, a.State, a.Tool, oneLine(a.Args, 80), a.Reason, a.Expires.Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}

func writeJSONLines[T any](w io.Writer, list []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range list {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// oneLine is s on one line, cut to n characters (never inside one).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
