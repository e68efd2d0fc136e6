package serve

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

type sessionKey struct{}

func withSession(ctx context.Context, ss *sdk.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss)
}

func sessionFrom(ctx context.Context) *sdk.ServerSession {
	ss, _ := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	return ss
}

// canElicit reports whether the client of ss declared the elicitation
// capability in its initialize request. Sessions of the 2026-07-28
// protocol, which has no server-initiated elicitation, do not.
func canElicit(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	// No mode named means form (the capability before modes existed).
	return e.Form != nil || e.URL == nil
}

// Approver returns the approver of the server's calls: the client of the
// call is asked by elicitation when it can be, and Options.Fallback
// otherwise. Install it with exec.SetApprover; calls that did not come
// from a client of this server go to the fallback too.
func (s *Server) Approver() core.Approver { return elicitApprover{s} }

type elicitApprover struct{ s *Server }

var _ core.Approver = elicitApprover{}

// approveSchema is the form of the elicitation: no fields, the client's
// accept, decline and cancel are the answer.
var approveSchema = map[string]any{"type": "object", "properties": map[string]any{}}

func (a elicitApprover) Approve(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
	ss := sessionFrom(ctx)
	if ss == nil || !canElicit(ss) {
		if a.s.opts.Fallback != nil {
			return a.s.opts.Fallback.Approve(ctx, req)
		}
		return core.Approval{}, fmt.Errorf("%w: %s; the client cannot be asked (it offers no elicitation): allow the call in a policy", core.ErrNeedsApproval, req.Reason)
	}
	msg := fmt.Sprintf("Allow %s %s? %s", req.Call.Name, string(req.Call.Args), req.Reason)
	if req.LeavesSandbox {
		msg = fmt.Sprintf("Run %s %s OUTSIDE agentsh's sandbox, with the rights of the user running agentsh? %s", req.Call.Name, string(req.Call.Args), req.Reason)
	}
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: approveSchema})
	if err != nil {
		return core.Approval{}, fmt.Errorf("asking the client for approval failed: %w", err)
	}
	switch res.Action {
	case "accept":
		return core.Approval{Verdict: core.VerdictAllow, Reason: "accepted by the client's user"}, nil
	case "decline":
		return core.Approval{Verdict: core.VerdictDeny, Reason: "declined by the client's user"}, nil
	case "cancel":
		return core.Approval{Verdict: core.VerdictDeny, Reason: "cancelled by the client's user"}, nil
	}
	return core.Approval{}, fmt.Errorf("the client answered the approval with action %q; want accept, decline or cancel", res.Action)
}
