package agent

import (
	"context"
	"strings"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/telemetry"
)

// complete makes one model request, in a chat span when the executor
// traces: priced names the provider and model ("openai:gpt-4o").
func (a *Agent) complete(ctx context.Context, p provider.Provider, req provider.Request, stream func(string), priced string, turn int) (provider.Response, error) {
	tr := a.exec.Tracing()
	if tr == nil {
		return p.Complete(ctx, req, stream)
	}
	kind, model, _ := strings.Cut(priced, ":")
	ctx, span := tr.StartChat(ctx, kind, model, turn)
	resp, err := p.Complete(ctx, req, stream)
	telemetry.EndChat(span, telemetry.Usage{
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens,
		FinishReason: resp.StopReason,
	}, err)
	return resp, err
}
