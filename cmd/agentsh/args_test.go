package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want options
	}{
		{nil, options{concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"run", "x.star", "--mode", "y"}, options{command: "run", positional: []string{"x.star", "--mode", "y"}, concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"--mode=mixed", "--concurrency", "4", "run", "x.star"}, options{command: "run", positional: []string{"x.star"}, mode: "mixed", concurrency: 4, workers: -1, lang: "starlark"}},
		{[]string{"call", "greet", "{}", "--load", "a.star", "--load=b.star", "--json"}, options{command: "call", positional: []string{"greet", "{}"}, loads: []string{"a.star", "b.star"}, concurrency: -1, workers: -1, jsonOut: true, lang: "starlark"}},
		{[]string{"-c", "1", "a", "--", "--b"}, options{code: "1", hasCode: true, positional: []string{"a", "--b"}, concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"--timeout", "2s", "--max-steps=10", "-i"}, options{timeout: 2 * time.Second, maxSteps: 10, interactive: true, concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"--json=false", "tools"}, options{command: "tools", concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"-h"}, options{command: "help", concurrency: -1, workers: -1, lang: "starlark"}},
		{[]string{"--lang", "lua", "-c", "return 1"}, options{code: "return 1", hasCode: true, concurrency: -1, workers: -1, lang: "lua"}},
		{[]string{"--lang=starlark"}, options{concurrency: -1, workers: -1, lang: "starlark"}},
		// --help and -h ask for help whatever else the line says.
		{[]string{"call", "greet", "--help"}, options{command: "help", positional: []string{"greet"}, concurrency: -1, workers: -1, lang: "starlark"}},
	}
	for _, tt := range tests {
		got, err := parseArgs(tt.args)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("parseArgs(%q)\n got  %+v\n want %+v", tt.args, *got, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope"},
		{[]string{"nope"}, `unknown command "nope": want run, call, explain, ask, tools, sessions, test, hook, mcp, audit, policy, resume, runs, approvals, approve, deny, batch, help or version`},
		{[]string{"tols"}, `unknown command "tols": did you mean "tools"? want run,`},
		{[]string{"sesions"}, `did you mean "sessions"?`},
		{[]string{"tools", "extra"}, `tools takes no arguments; got "extra"`},
		{[]string{"sessions", "a", "b"}, `sessions takes no arguments; got "a" "b"`},
		{[]string{"version", "now"}, `version takes no arguments; got "now"`},
		{[]string{"help", "me"}, `help takes no arguments; got "me"`},
		{[]string{"--load"}, "flag --load needs a value"},
		{[]string{"--mode", "fast"}, "unknown execution mode"},
		{[]string{"--concurrency=x"}, `--concurrency: got "x"`},
		{[]string{"--max-steps", "0"}, `--max-steps: got "0"`},
		{[]string{"--json=maybe"}, `--json: got "maybe"`},
		{[]string{"run", "-c", "1"}, `cannot be combined with "run"`},
		{[]string{"--lang", "python"}, `--lang: got "python", want star or lua`},
	} {
		_, err := parseArgs(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseArgs(%q): error %v, want %q", tt.args, err, tt.want)
		}
	}
}
