package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/process"
)

// Bounds of run_code.
const (
	defaultCodeTimeout = 30 * time.Second
	maxCodeTimeout     = 600 * time.Second
)

func init() { toolBuilders["run_code"] = (*Extension).runCodeTool }

// execLanguages run as processes through ExecOps, the code on stdin.
var execLanguages = map[string][]string{
	"python3": {"python3", "-"},
	"node":    {"node", "-"},
	"bash":    {"bash", "-s"},
}

type runCodeArgs struct {
	Language  string `json:"language"`
	Code      string `json:"code"`
	TimeoutMS *int   `json:"timeout_ms"`
}

func (x *Extension) languages() []string {
	var names []string
	for n := range x.runners {
		names = append(names, n)
	}
	for n := range execLanguages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (x *Extension) runCodeTool() core.Tool {
	langs := x.languages()
	quoted := make([]string, len(langs))
	for i, l := range langs {
		quoted[i] = `"` + l + `"`
	}
	return tool("run_code",
		"Runs a snippet in a fresh sandbox with no tools and returns what it printed. Languages: "+strings.Join(langs, ", ")+". Default timeout 30 s.",
		`{"type":"object","properties":{`+
			`"language":{"type":"string","enum":[`+strings.Join(quoted, ",")+`]},`+
			`"code":{"type":"string"},`+
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":600000,"description":"timeout in milliseconds (default 30000)"}},`+
			`"required":["language","code"],"additionalProperties":false}`,
		unsafe, false, x.runCode)
}

func (x *Extension) runCode(ctx context.Context, a runCodeArgs) (any, error) {
	timeout, err := runTimeout(a.TimeoutMS, defaultCodeTimeout, maxCodeTimeout)
	if err != nil {
		return nil, fmt.Errorf("run_code: %w", err)
	}
	if runner, ok := x.runners[a.Language]; ok {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		out, err := runner(rctx, a.Code)
		out = process.CapOutput(out, maxOutputChars)
		if err != nil {
			return nil, codeError(ctx, rctx, a.Language, timeout, out, err)
		}
		return runOutput(out, nil), nil
	}
	argv, ok := execLanguages[a.Language]
	if !ok {
		return nil, fmt.Errorf("run_code: unknown language %q; want one of %s", a.Language, strings.Join(x.languages(), ", "))
	}
	if err := x.checkCode(a.Language, a.Code); err != nil {
		return nil, fmt.Errorf("run_code: %w", err)
	}
	return x.run(ctx, process.ExecRequest{Args: argv, Dir: ".", Stdin: []byte(a.Code), Timeout: timeout}, a.Language+" code")
}

// checkCode applies the shell policy to code run as a process: bash code
// is checked like a bash command; python3 and node code cannot be checked,
// so with a policy set they run only if its allow list names them.
func (x *Extension) checkCode(language, code string) error {
	p := x.cfg.Shell
	switch {
	case !p.Active():
		return nil
	case language == "bash":
		return p.Check(code)
	case p.Names(language):
		return nil
	}
	return fmt.Errorf("%s code cannot be checked by the shell policy, so it does not run while a policy is set; to allow it, add %q to the shell policy's allow list: %w", language, language, process.ErrRefused)
}

// codeError is the error of an interpreted snippet that failed with err
// under rctx, run_code's deadline within the caller's ctx: a timeout when
// that deadline (not the caller's) ended it, a limit it exceeded, or its
// own error.
func codeError(ctx, rctx context.Context, lang string, timeout time.Duration, out string, err error) error {
	var le *process.LimitError
	switch {
	case ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(rctx.Err(), context.DeadlineExceeded)):
		return &outputError{msg: fmt.Sprintf("%s code timed out after %s", lang, timeout), output: out, cause: context.DeadlineExceeded}
	case errors.As(err, &le):
		return &outputError{msg: fmt.Sprintf("%s code %v", lang, le), output: out, cause: le}
	}
	return &outputError{msg: fmt.Sprintf("%s code failed: %v", lang, err), output: out}
}
