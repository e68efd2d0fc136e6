package agentapi

import "github.com/agentsh/agentsh/script"

// installSubagentAPI adds this part's names to the script API.
func (s *Session) installSubagentAPI(h *script.Host) error { return nil }
