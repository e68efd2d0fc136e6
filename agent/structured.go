package agent

import (
	"context"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// WithSchema asks for a final answer that is JSON valid against s; see
// checkFinal.
func WithSchema(s *core.Schema) RunOption { return func(c *runConfig) { c.schema = s } }

// checkFinal checks a final answer against the run's schema. again says
// the model was told what is wrong and gets another turn.
func (a *Agent) checkFinal(ctx context.Context, rc *runConfig, resp *provider.Response, reply *Reply) (again bool, err error) {
	return false, nil
}
