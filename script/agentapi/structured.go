package agentapi

import "github.com/agentsh/agentsh/agent"

// askSchema turns ask()'s schema = {...} into a run option (nil without
// one).
func askSchema(schema any) (agent.RunOption, error) { return nil, nil }
