package main

// The model adapters --model and provider("SPEC") can reach register
// themselves when imported; the CLI offers every one.
import _ "github.com/agentsh/agentsh/provider/all"
