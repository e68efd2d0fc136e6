// Package stdlib holds the behaviour of the modules agentsh scripts import
// (json, re, ...), written once over plain Go values so every language
// binding exposes the same results. A binding adds only the glue that turns
// its values into these functions' arguments and back.
//
// All functions are safe for concurrent use.
package stdlib
