package main

// The model adapters --model and provider("SPEC") can reach register
// themselves when imported; the CLI offers every one.
import _ "github.com/agentsh/agentsh/provider/all"

// Headless Chromium registers itself as the browser tool's Browser.
import _ "github.com/agentsh/agentsh/tools/browser"
