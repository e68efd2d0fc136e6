package main

// The script languages and the model adapters --model and provider("SPEC")
// can reach register themselves when imported; the CLI offers every one.
import _ "github.com/agentsh/agentsh/all"
