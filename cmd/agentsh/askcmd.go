package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/userfile"
)

// agentsh ask PROMPT: one agent run with the command line's model (--model,
// or model(fn)/provider(...) in a --load file), with the tools and
// policies of the --load files. The prompt is the arguments joined by
// spaces, or stdin for "-".
//
// Without --print the run shows what the REPL's :ask shows (the text as it
// streams, what tools show, refused calls) on stdout, so the answer is
// there once, as it arrives. With --print stdout holds only the final
// answer, or with --output-schema its data as one line of JSON, and the
// progress goes to stderr; a run that stops before a final answer prints
// nothing on stdout. With --json the events say it all and end with the
// result event.

// askCommand runs agentsh ask; its outcome joins the session's outcomes,
// which choose the exit code (finish).
func (a *app) askCommand(ctx context.Context) error {
	o := a.opts
	var opts []agent.RunOption
	if o.outputSchema != "" {
		s, err := readOutputSchema(o.outputSchema)
		if err != nil {
			return err
		}
		opts = append(opts, agent.WithSchema(s))
	}
	prompt, err := a.askPrompt()
	if err != nil {
		return err
	}
	reply, err := a.sh.Agent().RunTop(ctx, prompt, o.outputSchema != "", opts...)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	if reply.Stop == agent.StopMaxTokens && a.events == nil {
		// Not an exit code of its own: the run ended, but the answer is
		// incomplete, and --print leaves stdout empty.
		fmt.Fprintln(a.io.err, "agentsh: the answer was cut off at the model's token limit (stop max_tokens)")
	}
	if !o.printOnly || reply.Stop != agent.StopFinal {
		return nil
	}
	if o.outputSchema != "" {
		b, err := core.MarshalJSON(reply.Data)
		if err != nil { // not reached: the data was decoded from JSON
			return fmt.Errorf("ask: encode the answer's data: %w", err)
		}
		_, err = a.io.out.Write(append(bytes.TrimRight(b, "\n"), '\n'))
		return err
	}
	text := reply.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err = io.WriteString(a.io.out, text)
	return err
}

// askPrompt is the prompt of agentsh ask: its arguments, or stdin for "-".
func (a *app) askPrompt() (string, error) {
	args := a.opts.positional
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(a.io.in)
		if err != nil {
			return "", fmt.Errorf("ask -: read the prompt from stdin: %w", err)
		}
		prompt := strings.TrimSpace(string(b))
		if prompt == "" {
			return "", usagef("ask -: stdin held no prompt; pipe one in, or give it as an argument: agentsh ask \"which files mention the config?\"")
		}
		return prompt, nil
	}
	prompt := strings.Join(args, " ")
	if strings.TrimSpace(prompt) == "" {
		return "", usagef("ask needs a prompt: agentsh ask \"which files mention the config?\" (or - to read it from stdin)")
	}
	return prompt, nil
}

// maxSchemaSize bounds the --output-schema file.
const maxSchemaSize = 1 << 20

// readOutputSchema reads and compiles --output-schema FILE. A file that
// cannot be read or holds no usable schema is a mistake on the command
// line (exit 2); so is a path that is not a regular file (a FIFO, a
// device) and a file larger than maxSchemaSize.
func readOutputSchema(path string) (*core.Schema, error) {
	b, err := userfile.Read(path, maxSchemaSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("--output-schema: %v; give the path of a JSON Schema file", err)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, usagef("--output-schema: %v", err)
		}
		return nil, usagef("--output-schema %v; give the path of a JSON Schema file of at most 1 MiB", err)
	}
	s, err := agent.CompileOutputSchema(b)
	if err != nil {
		return nil, usagef("--output-schema %s: %v", path, err)
	}
	return s, nil
}

// progressOut is where the agent's progress is shown: out (the script's
// output), or stderr with --print, which keeps stdout for the answer (ask)
// or for what the script prints (run, -c).
func progressOut(o *options, out, stderr io.Writer) io.Writer {
	if o.printOnly {
		return stderr
	}
	return out
}
