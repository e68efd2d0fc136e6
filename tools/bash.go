package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/process"
)

// Bounds of bash.
const (
	defaultBashTimeout = 120 * time.Second
	maxBashTimeout     = 600 * time.Second
	maxOutputChars     = 30000
)

func init() { toolBuilders["bash"] = (*Extension).bashTool }

type bashArgs struct {
	Command   string `json:"command"`
	TimeoutMS *int   `json:"timeout_ms"`
	Workdir   string `json:"workdir"`
}

func (x *Extension) bashTool() core.Tool {
	return tool("bash",
		"Runs a bash command in the working directory (or workdir below it) and returns its combined output. A command that exits non-zero fails with its exit code and output. Default timeout 120 s, at most 600 s; on timeout the whole process group is killed. Output over 30,000 characters keeps its head and tail.",
		`{"type":"object","properties":{`+
			`"command":{"type":"string","description":"the bash command"},`+
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":600000,"description":"timeout in milliseconds (default 120000)"},`+
			`"workdir":{"type":"string","description":"directory to run in, relative to the working directory"}},`+
			`"required":["command"],"additionalProperties":false}`,
		unsafe, false, x.bash)
}

// runTimeout turns an optional timeout_ms into a duration within bounds.
func runTimeout(ms *int, def, max time.Duration) (time.Duration, error) {
	if ms == nil {
		return def, nil
	}
	d := time.Duration(*ms) * time.Millisecond
	if d <= 0 || d > max {
		return 0, fmt.Errorf("timeout_ms %d is out of range; want 1 to %d", *ms, max.Milliseconds())
	}
	return d, nil
}

func (x *Extension) bash(ctx context.Context, a bashArgs) (any, error) {
	if strings.TrimSpace(a.Command) == "" {
		return nil, fmt.Errorf("bash: command is empty")
	}
	timeout, err := runTimeout(a.TimeoutMS, defaultBashTimeout, maxBashTimeout)
	if err != nil {
		return nil, fmt.Errorf("bash: %w", err)
	}
	// Lexical escapes are refused here; symbolic links that lead out are
	// refused by ExecOps, which knows the filesystem it runs on.
	dir, err := x.resolve(a.Workdir)
	if err != nil {
		return nil, err
	}
	if err := x.cfg.Shell.Check(a.Command); err != nil {
		return nil, fmt.Errorf("bash: %w", err)
	}
	return x.run(ctx, process.ExecRequest{Args: []string{"bash", "-c", a.Command}, Dir: dir, Timeout: timeout}, "command")
}

// execFor returns what runs the call's processes: the sandbox in the
// call's profile, or Exec unconfined.
// ErrNoSandbox is the error of a command that would run in a sandbox when
// ExtensionConfig.Sandbox sets up none.
var ErrNoSandbox = errors.New("not set up here")

func (x *Extension) execFor(ctx context.Context) (ExecOps, error) {
	p := core.SandboxOf(ctx)
	if !p.Confined() {
		return x.exec, nil
	}
	if x.cfg.Sandbox == nil {
		return nil, fmt.Errorf("the %s sandbox is %w, so the command did not run; run it unconfined with config(sandbox = \"off\")", p, ErrNoSandbox)
	}
	return x.cfg.Sandbox.Ops(process.Profile(p)), nil
}

// run executes req through ExecOps and shapes the outcome for a model:
// output capped at maxOutputChars, a non-zero exit code as a failure that
// carries the output, a timeout as a timeout.
func (x *Extension) run(ctx context.Context, req process.ExecRequest, what string) (any, error) {
	ops, err := x.execFor(ctx)
	if err != nil {
		return nil, err
	}
	res, err := ops.Exec(ctx, req)
	if err != nil {
		return nil, err
	}
	out := process.CapOutput(string(res.Output), maxOutputChars)
	code := int64(res.ExitCode)
	switch {
	case res.TimedOut:
		return nil, &outputError{msg: fmt.Sprintf("%s timed out after %s; its process group was killed", what, req.Timeout), output: out, cause: context.DeadlineExceeded, exitCode: &code}
	case res.Canceled:
		return nil, &outputError{msg: what + " was canceled; its process group was killed", output: out, cause: context.Canceled, exitCode: &code}
	case res.ExitCode != 0:
		return nil, &outputError{msg: fmt.Sprintf("%s exited with code %d", what, res.ExitCode), output: out, exitCode: &code}
	}
	return runOutput(out, &code), nil
}

// runOutput is a successful run's output, with its data.
func runOutput(out string, exitCode *int64) core.DataOutput {
	text := out
	if text == "" {
		text = "(no output)"
	}
	return core.DataOutput{Text: text, Data: runData(out, exitCode, false)}
}

// runData is a run's result for scripts: the output (stdout and stderr
// interleaved, as the process wrote them; capped as in the text), the
// exit code (None for code run in process, which has none, or when it is
// unknown) and whether the run timed out.
func runData(out string, exitCode *int64, timedOut bool) map[string]any {
	d := map[string]any{"output": out, "exit_code": nil, "timed_out": timedOut}
	if exitCode != nil && *exitCode >= 0 {
		d["exit_code"] = *exitCode
	}
	return d
}

// outputError is a failed run with the output it produced; the output is
// part of the message, since that is what a model reads, and of the
// result's data.
type outputError struct {
	msg, output string
	cause       error
	exitCode    *int64 // nil: no process (code run in process)
}

var _ core.DataCarrier = (*outputError)(nil)

func (e *outputError) ToolData() any {
	return runData(e.output, e.exitCode, errors.Is(e.cause, context.DeadlineExceeded))
}

func (e *outputError) Error() string {
	if e.output == "" {
		return e.msg + " (no output)"
	}
	return e.msg + "; output:\n" + e.output
}

func (e *outputError) Unwrap() error { return e.cause }
