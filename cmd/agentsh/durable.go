package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// durableCommand reports whether the command line is one of durable runs.
func durableCommand(o *options) bool {
	switch o.command {
	case "resume", "runs", "approvals", "approve", "deny", "batch":
		return true
	}
	return o.durable
}

// durableFlags are the flags about the run, not about what it runs: they
// are left out of the settings a run keeps.
var durableFlags = map[string]bool{"durable": true, "run-id": true, "db": true, "force": true}

// faultHook is Config.Fault of the engine: nil, except in the tests
// that kill agentsh inside a step.
var faultHook func(point, step string)

// staleAfter is Config.StaleAfter of the engine: 0 (the engine's
// default), except in the tests that kill a batch and wait for its tasks
// to go back on the queue.
var staleAfter time.Duration

// durableCLI runs the commands of durable runs.
func durableCLI(o *options, args []string, std stdio) int {
	ctx, stop := runContext(o.timeout, std.err)
	defer stop()
	db := o.db
	if db == "" {
		db = os.Getenv("AGENTSH_DB")
	}
	eng, err := agentsh.OpenRuns(ctx, agentsh.RunsConfig{DB: db, Run: runner(std, o.traces), Fault: faultHook, StaleAfter: staleAfter})
	if err != nil {
		fmt.Fprintf(std.err, "agentsh: %v\n", err)
		return exitError
	}
	defer eng.Close()
	code, err := durableDispatch(ctx, eng, o, args, std)
	if err != nil {
		var st *agentsh.RunStopped
		switch stop := stopCause(ctx); {
		case errors.As(err, &st) && st.Approval != nil:
			code = exitWaiting
		case stop != nil:
			code = stop.exitCode()
		case code == exitOK:
			code = exitError
		}
		fmt.Fprintf(std.err, "agentsh: %v\n", err)
	}
	return code
}

func durableDispatch(ctx context.Context, eng *agentsh.Runs, o *options, args []string, std stdio) (int, error) {
	switch o.command {
	case "run", "ask":
		spec, err := newSpec(o, args)
		if err != nil {
			return exitUsage, err
		}
		out, err := eng.Start(ctx, spec, std.out)
		return out.ExitCode, nonNil(err, out)
	case "resume":
		if len(o.positional) != 1 {
			return exitUsage, usagef("resume needs a run id: agentsh resume ID (agentsh runs lists them)")
		}
		out, err := eng.Resume(ctx, o.positional[0], std.out, agentsh.ResumeOptions{Force: o.force})
		return out.ExitCode, nonNil(err, out)
	case "runs":
		list, err := eng.Runs(ctx)
		if err == nil {
			err = agentsh.WriteRuns(std.out, list, o.jsonOut)
		}
		return exitOf(err), err
	case "approvals":
		list, err := eng.Approvals(ctx, o.all)
		if err == nil {
			err = agentsh.WriteApprovals(std.out, list, o.jsonOut)
		}
		return exitOf(err), err
	case "approve", "deny":
		if len(o.positional) != 1 {
			return exitUsage, usagef("%s needs an approval id: agentsh %s ID (agentsh approvals lists them)", o.command, o.command)
		}
		if o.command == "deny" && o.reason == "" {
			return exitUsage, usagef("deny needs a reason for the model: agentsh deny %s --reason R", o.positional[0])
		}
		a, err := eng.Decide(ctx, o.positional[0], agentsh.DecideOptions{Approve: o.command == "approve", Reason: o.reason, Run: o.runID})
		if err == nil {
			fmt.Fprintf(std.out, "%s %s; agentsh resume %s goes on\n", a.ID, a.State, a.Run)
		}
		return exitOf(err), err
	case "batch":
		return batch(ctx, eng, o, args, std)
	}
	return exitUsage, usagef("--durable runs a script or an ask: agentsh run --durable FILE, agentsh ask --durable PROMPT")
}

// errDeferNeedsDurable is the refusal of --approve defer outside a
// durable run.
var errDeferNeedsDurable = usagef("--approve defer waits for agentsh approve, which only a durable run can: add --durable")

// newSpec is the run the command line asks for.
func newSpec(o *options, args []string) (agentsh.RunSpec, error) {
	wd, err := filepath.Abs(o.workdir)
	if err != nil {
		return agentsh.RunSpec{}, err
	}
	spec := agentsh.RunSpec{ID: o.runID, WorkDir: wd, Settings: runSettings(o.command, args, durableFlags), Approve: o.approve,
		ApprovalTTL: int64(o.approvalTTL.Seconds())}
	if o.command == "ask" {
		if len(o.positional) == 1 && o.positional[0] == "-" {
			return agentsh.RunSpec{}, usagef("ask --durable keeps its prompt with the run: give it on the command line, not on stdin")
		}
		spec.Prompt = strings.Join(o.positional, " ")
		return spec, nil
	}
	if spec.Script, err = filepath.Abs(o.positional[0]); err != nil {
		return agentsh.RunSpec{}, err
	}
	spec.Args = o.positional[1:]
	spec.ScriptHash, err = agentsh.HashFile(spec.Script)
	return spec, err
}

// runSettings are the part of the command line a run keeps: the command
// and its flags, without those in drop (and their values), with the paths
// they name made absolute, so that any process, in any directory, composes
// the same shell. The run's own words (the script and its arguments, the
// prompt, a batch's tasks file) are not settings: they are in the spec,
// and the runner gives them after "--" (see runArgs).
func runSettings(command string, args []string, drop map[string]bool) []string {
	keep := []string{command}
	seenCommand := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if !seenCommand && isCommand(a) {
				seenCommand = true
				continue
			}
			if command == "run" {
				break // the script: the words after it are its arguments
			}
			continue // a prompt's words, a batch's tasks file
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		_, takesValue := valueFlags[name]
		next := takesValue && !hasValue && i+1 < len(args)
		switch {
		case drop[name]:
		case pathFlags[name] && hasValue:
			keep = append(keep, a[:len(a)-len(value)]+absPath(name, value))
		case pathFlags[name] && next:
			keep = append(keep, a, absPath(name, args[i+1]))
		case next:
			keep = append(keep, a, args[i+1])
		default:
			keep = append(keep, a)
		}
		if next {
			i++
		}
	}
	return keep
}

// runArgs is the command line of an execution of the run: its settings,
// then its words.
func runArgs(spec agentsh.RunSpec) []string {
	words := []string{spec.Prompt}
	if spec.Script != "" {
		words = append([]string{spec.Script}, spec.Args...)
	}
	return append(append(slices.Clip(spec.Settings), "--"), words...)
}

// pathFlags are the flags whose values are files (--model's replay:FILE).
var pathFlags = map[string]bool{"load": true, "record": true, "prices": true, "output-schema": true,
	"pins": true, "events": true, "workdir": true, "model": true}

func absPath(flag, v string) string {
	if flag == "model" {
		if f, ok := strings.CutPrefix(v, "replay:"); ok {
			return "replay:" + absPath("", f)
		}
		return v
	}
	if abs, err := filepath.Abs(v); err == nil {
		return abs
	}
	return v
}

// runner executes the runs of this process: each execution is the
// command line the run keeps, with the journal in its shell, and a span
// of its own ("agentsh run" with the run's id) when traces are exported.
func runner(std stdio, traces *otlpenv.Traces) agentsh.Runner {
	return func(ctx context.Context, j *agentsh.RunJournal, spec agentsh.RunSpec, out io.Writer) (agentsh.RunOutcome, error) {
		o, err := parseArgs(runArgs(spec))
		if err != nil {
			return agentsh.RunOutcome{ExitCode: exitUsage, Error: err.Error()}, nil
		}
		o.workdir, o.journal, o.traces = spec.WorkDir, j, traces
		if len(spec.Task) > 0 {
			if o.task, err = script.DecodeJSON(spec.Task); err != nil {
				return agentsh.RunOutcome{ExitCode: exitUsage, Error: fmt.Sprintf("task %d: %v", spec.Index, err)}, nil
			}
		}
		j.SetPolicy(agentsh.PolicyHash(spec.Settings, append([]string{spec.Script}, o.loads...)...))
		argv := []string{"agentsh"}
		if spec.Script != "" {
			argv = o.positional
		}
		// Once the run stops (parked, or taken over), what it would say
		// about being cancelled is not the run's to say.
		a, err := newApp(o, stdio{in: strings.NewReader(""), out: out, err: j.Writer(std.err)}, argv)
		if err != nil {
			return agentsh.RunOutcome{ExitCode: exitUsage, Error: err.Error()}, nil
		}
		defer a.close()
		a.runCtx = ctx
		ctx, end := o.traceCommand(ctx)
		code := a.dispatch(ctx)
		end(code)
		res, _ := json.Marshal(agentsh.ResultEvent(a.sh.Outcomes(), code))
		return agentsh.RunOutcome{ExitCode: code, Result: res}, nil
	}
}

func nonNil(err error, out agentsh.RunOutcome) error {
	if err == nil && out.Error != "" {
		return errors.New(out.Error)
	}
	return err
}

func exitOf(err error) int {
	if err != nil {
		return exitError
	}
	return exitOK
}
