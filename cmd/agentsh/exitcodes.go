package main

// Exit codes (see usageText): beyond 0, 1 and 2, a run that stopped
// before the model's final answer says why, so a caller can tell a
// finished run from one cut short without reading its output.
const (
	exitOK       = 0
	exitError    = 1 // a script error, a failed call, a model that failed
	exitUsage    = 2 // a mistake on the command line
	exitMaxTurns = 3 // an ask stopped at its turn limit (--max-turns)
	exitBudget   = 4 // a budget was exhausted (--max-tool-calls, --max-tokens, --max-cost, --max-wall, config(budget = ...))
	exitDiverged = 5 // a replay left its recording (--model replay:FILE)
	exitDenied   = 6 // with --fail-on-deny: a call was denied
	exitWaiting  = 7 // a durable run parked at an ask (--approve defer): agentsh approvals lists it
	// 128+N: stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
)
