package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/termsafe"
)

// Who is asked when a call's verdict is ask: the person at the REPL's
// terminal, or, without one, the --approve setting. A script's
// on("approve", fn) replaces either.

// The values of --approve.
const (
	approveNever  = "never"
	approveAlways = "always"
	approveDefer  = "defer" // durable runs: the ask waits for agentsh approve (see the durable package)
)

// allowAllNotice is printed on stderr when a run starts with
// --permissions allow-all.
const allowAllNotice = "agentsh: permissions allow-all: every call no policy decides runs, the model's included"

// headlessApprover answers every ask the same way: never (rejected, with
// what to do about it) or always. Always approves a call in its sandbox,
// never out of it: leaving the sandbox unattended takes --sandbox off.
func headlessApprover(mode string) core.Approver {
	if mode == approveAlways {
		return core.ApproverFunc(func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
			if req.LeavesSandbox {
				return core.Approval{}, &needsApproval{reason: req.Reason, leaves: true}
			}
			return core.Approval{Verdict: core.VerdictAllow, Reason: "--approve always"}, nil
		})
	}
	return core.ApproverFunc(func(_ context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		return core.Approval{}, &needsApproval{reason: req.Reason}
	})
}

// needsApproval is the refusal of --approve never. The executor rejects
// the call with its text.
type needsApproval struct {
	reason string
	leaves bool // the call would leave its sandbox, which --approve always does not approve
}

func (e *needsApproval) Error() string {
	if e.leaves {
		return "needs approval: " + e.reason + "; --approve always approves calls in their sandbox, not out of it: pass --sandbox off to run the model's commands unconfined"
	}
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
	// out is the terminal, through a termsafe.Writer: what the request
	// shows comes from the model (arguments, file contents, reasons) and
	// must not be able to hide or redraw a line of it.
	out io.Writer
}

var _ core.Approver = (*promptApprover)(nil)

func (p *promptApprover) Approve(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return core.Approval{}, err
	}
	call := req.Call
	io.WriteString(p.out, describeRequest(ctx, req))
	flushTerminal(p.out)
	question, help := fmt.Sprintf("allow %s? y once, a always this session, n no: ", call.Name), "answer y (once), a (always for this tool in this session) or n (no)\n"
	if req.LeavesSandbox {
		// Leaving the sandbox is approved one call at a time.
		question, help = fmt.Sprintf("run %s %s? y once, n no: ", call.Name, leaveWords(call.Sandbox)), "answer y (once) or n (no)\n"
	}
	for {
		// liner writes the prompt itself, past out.
		line, err := p.ask(termsafe.String(question))
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
			if req.LeavesSandbox {
				break
			}
			return core.Approval{Verdict: core.VerdictAllow, Reason: "approved at the prompt for the rest of the session", Always: true}, nil
		case "n", "no":
			why, err := p.ask("reason for the model (optional): ")
			if err != nil {
				why = ""
			}
			return core.Approval{Verdict: core.VerdictDeny, Reason: strings.TrimSpace(why)}, nil
		}
		io.WriteString(p.out, help)
		flushTerminal(p.out)
	}
}

// describeRequest is what the person sees before the prompt: the tool,
// who called it, who asks and why, then what the call would change (the
// tool's preview: a diff for write_file and edit_file) or, for a tool
// without one, the arguments.
func describeRequest(ctx context.Context, req *core.ApprovalRequest) string {
	var b strings.Builder
	call := req.Call
	who := "you want"
	if call.Origin == core.OriginModel {
		who = "the model wants"
	}
	fmt.Fprintf(&b, "\n%s to run %s\n", who, call.Name)
	if req.LeavesSandbox {
		if call.Sandbox.Confined() {
			fmt.Fprintf(&b, "  LEAVES ITS SANDBOX: approving runs it %s\n", leaveWords(call.Sandbox))
		} else {
			b.WriteString("  OUTSIDE THE SANDBOX: approving runs it unconfined, with your own rights\n")
		}
	}
	asker := req.Hook
	if req.Source != "" {
		asker += " at " + req.Source
	}
	fmt.Fprintf(&b, "  asked by %s: %s\n", asker, req.Reason)
	if call.Tool != nil && call.Tool.Preview != nil {
		text, err := preview(ctx, call)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "  (cannot show the change: %v)\n", err)
		case text != "":
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			b.WriteString(firstLines(text, strings.Count(text, "\n")))
			return b.String()
		}
	}
	b.WriteString("  arguments: ")
	b.WriteString(firstLines(agentsh.ShowJSON(call.Args, "  ", "  ")+"\n", maxArgLines))
	return b.String()
}

// leaveWords says where a call that leaves its sandbox would run.
func leaveWords(p core.Sandbox) string {
	if p == core.SandboxOff || p == core.SandboxUnset {
		return "unconfined"
	}
	return "in the wider " + string(p) + " sandbox"
}

// preview runs the tool's preview of call; a preview that panics shows
// nothing, and the person still decides.
func preview(ctx context.Context, call *core.Call) (text string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the preview of %s panicked: %v", call.Name, v)
		}
	}()
	return call.Tool.Preview(ctx, call.Args)
}

// Bounds of what the prompt shows: the arguments' lines, and the bytes
// of the arguments or a preview (a line may be as long as a file).
const (
	maxArgLines  = 40
	maxShowBytes = 64 << 10
)

// firstLines keeps the first max lines of text, and at most maxShowBytes
// of them, and says how much it left out.
func firstLines(text string, max int) string {
	i := 0
	for range max {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			i = len(text)
			break
		}
		i += j + 1
	}
	if i > maxShowBytes {
		cut := maxShowBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		return text[:cut] + fmt.Sprintf("\n  (%d more bytes not shown)\n", len(text)-cut)
	}
	if i >= len(text) {
		return text
	}
	rest := strings.Count(text[i:], "\n")
	if !strings.HasSuffix(text, "\n") {
		rest++
	}
	return text[:i] + fmt.Sprintf("  (%d more lines not shown)\n", rest)
}
