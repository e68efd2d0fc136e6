// Package all registers everything agentsh offers by name, for a program
// that wants the whole shell with one import:
//
//	import (
//		"github.com/agentsh/agentsh"
//		_ "github.com/agentsh/agentsh/all"
//	)
//
// It brings the Starlark and Lua bindings (package script/starlark,
// script/lua), every model adapter (package provider/all: openai,
// ollama, anthropic, replay) and headless Chromium for the browser tool
// (package tools/browser). A program that wants less imports those it
// wants instead; package agentsh names none of them.
package all

import (
	_ "github.com/agentsh/agentsh/provider/all"
	_ "github.com/agentsh/agentsh/script/lua"
	_ "github.com/agentsh/agentsh/script/starlark"
	_ "github.com/agentsh/agentsh/tools/browser"
)
