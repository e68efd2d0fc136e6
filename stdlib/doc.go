// Package stdlib holds the behaviour of the modules agentsh scripts import
// (json, re, time and the assert module of script tests), written once
// over plain Go values so every language gets the same results. Package
// script declares the modules over these functions (script/modules.go),
// and every binding shows them; stdlib imports nothing of agentsh.
//
// All functions are safe for concurrent use.
package stdlib
