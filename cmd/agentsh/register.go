package main

// The script languages, the model adapters --model and provider("SPEC")
// can reach, and the browser tool's Chromium register themselves when
// imported; the CLI offers every one.
import _ "github.com/agentsh/agentsh/all"
