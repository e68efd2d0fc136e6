package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// Who is asked when a call's verdict is ask: the person at the REPL's
// terminal, or, without one, the --approve setting. A script's
// on("approve", fn) replaces either.

// The values of --approve.
const (
	approveNever  = "never"
	approveAlways = "always"
)

var permissionChoices = []string{
	executor.PermissionsDefault.String(), executor.PermissionsAllowAll.String(), executor.PermissionsDenyUnlisted.String(),
}

// allowAllNotice is printed on stderr when a run starts with
// --permissions allow-all.
const allowAllNotice = "agentsh: permissions allow-all: every call no policy decides runs, the model's included"

// headlessApprover answers every ask the same way: never (rejected, with
// what to do about it) or always.
func headlessApprover(mode string) core.Approver {
	if mode == approveAlways {
		return core.ApproverFunc(func(context.Context, *core.ApprovalRequest) (core.Approval, error) {
			return core.Approval{Verdict: core.VerdictAllow, Reason: "--approve always"}, nil
		})
	}
	return core.ApproverFunc(func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{}, &needsApproval{reason: req.Reason}
	})
}

// needsApproval is the refusal of --approve never. The executor rejects
// the call with its text.
type needsApproval struct{ reason string }

func (e *needsApproval) Error() string {
	return "needs approval: " + e.reason + "; allow it in a policy or pass --approve always"
}

func (e *needsApproval) Unwrap() error { return core.ErrNeedsApproval }

// promptApprover asks the person at a terminal. Prompts are serialized:
// a parallel batch may ask for several calls at once, and each waits its
// turn.
type promptApprover struct {
	mu sync.Mutex
	// ask shows a prompt and returns the line typed, errAborted for
	// Ctrl-C, io.EOF at the end of input.
	ask func(prompt string) (string, error)
	out io.Writer
	dir string // the working directory, for diffs
}

var _ core.Approver = (*promptApprover)(nil)

func (p *promptApprover) Approve(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return core.Approval{}, err
	}
	call := req.Call
	io.WriteString(p.out, terminalSafe(describeRequest(req, p.dir)))
	for {
		line, err := p.ask(fmt.Sprintf("allow %s? y once, a always this session, n no: ", call.Name))
		switch {
		case errors.Is(err, errAborted):
			io.WriteString(p.out, "denied (Ctrl-C)\n")
			return core.Approval{Verdict: core.VerdictDeny, Reason: "the user pressed Ctrl-C at the approval prompt"}, nil
		case err != nil:
			return core.Approval{Verdict: core.VerdictDeny, Reason: "no answer at the approval prompt"}, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return core.Approval{Verdict: core.VerdictAllow, Reason: "approved once at the prompt"}, nil
		case "a", "always":
			return core.Approval{Verdict: core.VerdictAllow, Reason: "approved at the prompt for the rest of the session", Always: true}, nil
		case "n", "no":
			why, err := p.ask("reason for the model (optional): ")
			if err != nil {
				why = ""
			}
			return core.Approval{Verdict: core.VerdictDeny, Reason: strings.TrimSpace(why)}, nil
		}
		io.WriteString(p.out, "answer y (once), a (always for this tool in this session) or n (no)\n")
	}
}

// describeRequest is what the person sees before the prompt: the tool,
// who called it, who asks and why, and the arguments, or for a file
// change its diff.
func describeRequest(req *core.ApprovalRequest, dir string) string {
	var b strings.Builder
	call := req.Call
	who := "you"
	if call.Origin == core.OriginModel {
		who = "the model"
	}
	fmt.Fprintf(&b, "\n%s wants to run %s\n", who, call.Name)
	asker := req.Hook
	if req.Source != "" {
		asker += " at " + req.Source
	}
	fmt.Fprintf(&b, "  asked by %s: %s\n", asker, req.Reason)
	if diff, ok := changeDiff(dir, call.Name, call.Args); ok {
		fmt.Fprintf(&b, "  path: %s\n", argString(call.Args, "path"))
		b.WriteString(diff)
		return b.String()
	}
	b.WriteString("  arguments: ")
	b.WriteString(capLines(indentJSON(call.Args), maxArgLines))
	return b.String()
}

// terminalSafe spells out what would act on the terminal instead of
// showing: control characters other than newline and tab, C1 controls,
// bytes that are not UTF-8, and the bidirectional overrides that reorder
// text. What the prompt shows comes from the model (arguments, file
// contents) and must not be able to hide or redraw a line of it.
func terminalSafe(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		s = s[size:]
	}
	return b.String()
}

// maxArgLines bounds the arguments shown at the prompt.
const maxArgLines = 40

// indentJSON renders arguments for people, one key a line.
func indentJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || len(raw) == 0 {
		return string(raw) + "\n"
	}
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return string(raw) + "\n"
	}
	return string(b) + "\n"
}

func argString(raw json.RawMessage, key string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	s, _ := m[key].(string)
	return s
}
