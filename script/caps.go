package script

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
)

// Caps on the text a host builds from one call. A script tool or
// middleware can return a string of a gigabyte, and an error message can be
// as long; passed on whole, it would be copied into every message, log
// and transcript that mentions the call.
const (
	// MaxOutputBytes bounds a script tool's or middleware's output (for the
	// model and for the person alike) and the output, for_user and error
	// fields scripts see after invoke_tool and invoke_all. Longer text is
	// cut, on a character boundary, and ends with a line saying how long it
	// was. With offload on (config(offload = N)), an output the artifact
	// store will take is passed on whole instead, so nothing is lost.
	MaxOutputBytes = 16 << 20

	// MaxErrorBytes bounds the error message of a script tool, hook or
	// middleware, and a deny reason.
	MaxErrorBytes = 64 << 10
)

// cut returns s, or its first max bytes and a line saying what was cut.
func cut(s string, max int, what, hint string) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[%s cut: %d bytes in all, the first %d above%s]", what, len(s), n, hint)
}

const offloadHint = "; config(offload = 65536) keeps whole outputs as artifacts"

func cutOutput(s string) string { return cut(s, MaxOutputBytes, "output", offloadHint) }

// offloads reports whether the executor's artifact offload will store an
// output of n bytes whole.
func (h *Host) offloads(n int) bool {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	return h.threshold > 0 && h.store != nil && n > h.threshold
}

// boundOutput cuts the text of a tool output from a script (what
// toolOutput returns) to MaxOutputBytes.
func (h *Host) boundOutput(v any) any {
	llm := func(s string) string {
		if len(s) <= MaxOutputBytes || h.offloads(len(s)) {
			return s
		}
		return cutOutput(s)
	}
	switch o := v.(type) {
	case string:
		return llm(o)
	case json.RawMessage:
		if len(o) > MaxOutputBytes && !h.offloads(len(o)) {
			return cutOutput(string(o))
		}
	case core.DualToolOutput:
		return core.DualToolOutput{ForLLM: llm(o.ForLLM), ForUser: cutOutput(o.ForUser)}
	case core.SilentResult:
		return core.SilentResult{ForLLM: llm(o.ForLLM)}
	case core.BlockOutput:
		return core.BlockOutput{Text: llm(o.Text), Blocks: o.Blocks}
	}
	return v
}

// cutError is an error whose message was cut; errors.As still finds the
// original.
type cutError struct {
	msg string
	err error
}

func (e *cutError) Error() string { return e.msg }
func (e *cutError) Unwrap() error { return e.err }

// boundError cuts err's message to MaxErrorBytes.
func boundError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if len(msg) <= MaxErrorBytes {
		return err
	}
	return &cutError{msg: cut(msg, MaxErrorBytes, "error message", ""), err: err}
}

// boundResult is r as a script sees it after invoke_tool: the same result,
// or a copy whose text fields are cut to MaxOutputBytes.
func boundResult(r *core.Result) *core.Result {
	long := func(s string) bool { return len(s) > MaxOutputBytes }
	msg := ""
	if r.Err != nil {
		msg = r.Err.Error()
	}
	if !long(r.ForLLM) && !long(r.ForUser) && !long(msg) {
		return r
	}
	c := *r
	c.ForLLM, c.ForUser = cutOutput(r.ForLLM), cutOutput(r.ForUser)
	if long(msg) {
		if e, ok := r.Err.(*core.Error); ok {
			ce := *e
			ce.Message = cut(msg, MaxOutputBytes, "error message", "")
			c.Err = &ce
		} else {
			c.Err = &core.Error{Kind: core.KindOf(r.Err), Tool: r.Tool, CallID: r.CallID,
				Message: cut(msg, MaxOutputBytes, "error message", ""), Err: r.Err}
		}
	}
	return &c
}
