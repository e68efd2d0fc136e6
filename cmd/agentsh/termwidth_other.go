//go:build !unix

package main

import "os"

// terminalWidth is 0 (no terminal width known) where agentsh cannot ask.
func terminalWidth(*os.File) int { return 0 }
