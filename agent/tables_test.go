package agent_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider/pricing"
)

// TestPricedModelsHaveWindows: every model the built-in price table
// prices has a known context window, so a model whose cost a budget
// bounds is also compacted before it fills.
func TestPricedModelsHaveWindows(t *testing.T) {
	for _, m := range pricing.Builtin().Models() {
		if strings.HasSuffix(m, "*") {
			continue // a family of models, such as every local one
		}
		kind := "openai"
		if strings.HasPrefix(m, "claude") {
			kind = "anthropic"
		}
		spec := m
		if !strings.Contains(m, ":") {
			spec = kind + ":" + m
		}
		if agent.KnownContextWindow(spec, "") == 0 {
			t.Errorf("%s has a price but no known context window", spec)
		}
	}
}
