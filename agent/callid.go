package agent

import (
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/provider"
)

// nameCalls gives the calls of resp that came without an id (a scripted
// model, a local server that omits them) the id call_N_M: the Mth call of
// the answer (its cut-off calls last), N one more than any N of the ids
// so made in the conversation and the answer. So an id is unique in its
// conversation across Runs, resumes and compactions: a provider switched
// to mid-conversation (Anthropic) refuses a history that holds an id
// twice. When no call comes with an id, a conversation's first answer
// with calls has call_1_1 and on, its next call_2_1 and on, and so on.
func nameCalls(conv []provider.Message, resp *provider.Response) {
	answer := [][]provider.ToolCall{resp.ToolCalls, resp.Incomplete}
	missing, n := false, 0
	for _, calls := range answer {
		for _, tc := range calls {
			missing = missing || tc.ID == ""
			n = max(n, callTurn(tc.ID))
		}
	}
	if !missing {
		return
	}
	for _, m := range conv {
		for _, tc := range m.ToolCalls {
			n = max(n, callTurn(tc.ID))
		}
	}
	prefix := "call_" + strconv.Itoa(n+1) + "_"
	m := 0
	for _, calls := range answer {
		for i := range calls {
			m++
			if calls[i].ID == "" {
				calls[i].ID = prefix + strconv.Itoa(m)
			}
		}
	}
}

// callTurn is the N of an id call_N_M, or 0 for any other id (a
// provider's own, or an N too large to count on from).
func callTurn(id string) int {
	rest, ok := strings.CutPrefix(id, "call_")
	if !ok {
		return 0
	}
	nStr, _, ok := strings.Cut(rest, "_")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(nStr)
	if err != nil || n <= 0 || n >= 1e9 {
		return 0
	}
	return n
}
