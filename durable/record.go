package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// decision is what the journal keeps of a call before its work: its
// canonical form and its decision records, without their durations. A
// resumed run compares the one it makes with the one journaled.
type decision struct {
	Tool string `json:"tool"`
	// Args is a string, not raw JSON, so that it comes back from the
	// journal byte for byte (the journal's encoder escapes <, > and &).
	Args    string           `json:"args"`
	Sandbox core.Sandbox     `json:"sandbox,omitempty"`
	Records []decisionRecord `json:"records,omitempty"`
}

type decisionRecord struct {
	Stage   core.Stage   `json:"stage"`
	Hook    string       `json:"hook"`
	Source  string       `json:"source,omitempty"`
	Verdict core.Verdict `json:"verdict"`
	Reason  string       `json:"reason,omitempty"`
	Skipped bool         `json:"skipped,omitempty"`
	Sandbox core.Sandbox `json:"sandbox,omitempty"`
	Rewrote bool         `json:"rewrote,omitempty"`
}

func decisionOf(call *core.Call) decision {
	d := decision{Tool: call.Name, Args: string(call.Args), Sandbox: call.Sandbox}
	for _, r := range call.Decisions() {
		d.Records = append(d.Records, decisionRecord{Stage: r.Stage, Hook: r.Hook, Source: r.Source,
			Verdict: r.Verdict, Reason: r.Reason, Skipped: r.Skipped, Sandbox: r.Sandbox, Rewrote: r.Rewrote})
	}
	return d
}

// differs says how now differs from was, journaled: "" when it does not.
func (was decision) differs(now decision) string {
	switch {
	case was.Tool != now.Tool:
		return fmt.Sprintf("the journal has a call of %s here, the run now calls %s", was.Tool, now.Tool)
	case !jsonEqual(json.RawMessage(was.Args), json.RawMessage(now.Args)):
		return fmt.Sprintf("%s was called with %s, now with %s", now.Tool, was.Args, now.Args)
	case was.Sandbox != now.Sandbox:
		return fmt.Sprintf("%s ran in sandbox %q, now in %q", now.Tool, was.Sandbox, now.Sandbox)
	}
	for i := 0; i < max(len(was.Records), len(now.Records)); i++ {
		var a, b decisionRecord
		if i < len(was.Records) {
			a = was.Records[i]
		}
		if i < len(now.Records) {
			b = now.Records[i]
		}
		if a != b {
			return fmt.Sprintf("decision %d of %s was %s, now %s", i+1, now.Tool, a, b)
		}
	}
	return ""
}

func (r decisionRecord) String() string {
	if r.Hook == "" && r.Verdict == core.VerdictNone {
		return "none"
	}
	s := fmt.Sprintf("%s by %s", r.Verdict, r.Hook)
	if r.Verdict == core.VerdictNone {
		s = "no verdict by " + r.Hook
	}
	if r.Source != "" {
		s += " (" + r.Source + ")"
	}
	if r.Reason != "" {
		s += fmt.Sprintf(": %q", r.Reason)
	}
	return s
}

func jsonEqual(a, b json.RawMessage) bool {
	if slices.Equal(a, b) {
		return true
	}
	na, errA := core.NormalizeArgs(a)
	nb, errB := core.NormalizeArgs(b)
	return errA == nil && errB == nil && slices.Equal(na, nb)
}

// result is what the journal keeps of a call's work: the fields of
// core.Result the work sets. Data is kept as JSON and decoded back with
// integers as integers.
type result struct {
	ForLLM   string            `json:"for_llm,omitempty"`
	ForUser  string            `json:"for_user,omitempty"`
	Silent   bool              `json:"silent,omitempty"`
	Blocks   []core.Block      `json:"blocks,omitempty"`
	Artifact *core.ArtifactRef `json:"artifact,omitempty"`
	Data     string            `json:"data,omitempty"` // JSON, kept as a string (see decision.Args)
	Err      *errorRecord      `json:"error,omitempty"`
}

// errorRecord is a failed call's *core.Error; its cause is kept as text.
type errorRecord struct {
	Kind       core.Kind        `json:"kind"`
	Message    string           `json:"message"`
	Hook       string           `json:"hook,omitempty"`
	Violations []core.Violation `json:"violations,omitempty"`
}

func resultOf(r *core.Result) (result, error) {
	rec := result{ForLLM: r.ForLLM, ForUser: r.ForUser, Silent: r.Silent, Blocks: r.Blocks, Artifact: r.Artifact}
	if r.Data != nil {
		var b strings.Builder
		if err := encodeData(&b, r.Data); err != nil {
			return result{}, fmt.Errorf("journal the data of %s: %v", r.Tool, err)
		}
		rec.Data = b.String()
	}
	if r.Err != nil {
		e := &errorRecord{Kind: core.KindOf(r.Err), Message: r.Err.Error()}
		var ce *core.Error
		if errors.As(r.Err, &ce) {
			e.Hook, e.Violations = ce.Hook, ce.Violations
		}
		rec.Err = e
	}
	return rec, nil
}

// toResult makes the journaled work of call a result again.
func (rec result) toResult(call *core.Call) *core.Result {
	r := &core.Result{CallID: call.ID, Tool: call.Name, ForLLM: rec.ForLLM, ForUser: rec.ForUser,
		Silent: rec.Silent, Blocks: rec.Blocks, Artifact: rec.Artifact}
	if len(rec.Data) > 0 {
		if err := r.SetData(json.RawMessage(rec.Data)); err != nil {
			r.Err = &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID,
				Message: fmt.Sprintf("journaled data of %s: %v", call.Name, err)}
			return r
		}
	}
	if e := rec.Err; e != nil {
		r.Err = &core.Error{Kind: e.Kind, Tool: call.Name, CallID: call.ID, Message: e.Message, Hook: e.Hook, Violations: e.Violations}
	}
	return r
}

// encodeData writes Data (plain JSON shapes, see core.Result.SetData) as
// JSON that decodes to the same shapes: a float64 that is a whole number
// is written with ".0", so it comes back a float64, not an int64.
func encodeData(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("cannot journal the number %v", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeData(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := encodeData(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		e, err := core.MarshalJSON(x)
		if err != nil {
			return err
		}
		b.Write(e)
	}
	return nil
}
