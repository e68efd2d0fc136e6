package starlark

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/script"
	"go.starlark.net/resolve"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// wrapError converts Starlark's error types into *script.Error, with the
// position of the innermost script frame and, for runtime errors, the
// backtrace (printed before the message, most recent call last).
func wrapError(err error) error {
	if err == nil {
		return nil
	}
	if se, ok := err.(*script.Error); ok {
		return se
	}
	var ee *star.EvalError
	if errors.As(err, &ee) {
		e := &script.Error{Msg: ee.Msg, Err: err}
		if sb := script.StepBudgetIn(ee.Msg, err); sb != nil {
			e.Err = sb // the thread's cancel reason is text (see onMaxSteps)
		}
		for i := 0; i < len(ee.CallStack); i++ { // innermost script frame
			fr := ee.CallStack.At(i)
			if fr.Pos.Filename() != "<builtin>" && fr.Pos.IsValid() {
				setPos(e, fr.Pos)
				break
			}
		}
		e.Backtrace = backtrace(ee.CallStack)
		return e
	}
	var sx syntax.Error
	if errors.As(err, &sx) {
		e := &script.Error{Msg: sx.Msg, Err: err}
		setPos(e, sx.Pos)
		return e
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		msgs := make([]string, len(rl))
		for i, r := range rl {
			msgs[i] = r.Error()
		}
		e := &script.Error{Msg: rl[0].Msg + moreErrors(msgs[1:]), Err: err}
		setPos(e, rl[0].Pos)
		return e
	}
	return err
}

// setPos sets the error's position from a Starlark position.
func setPos(e *script.Error, pos syntax.Position) {
	e.File = pos.Filename()
	if pos.Line > 0 {
		e.Line = int(pos.Line)
		if pos.Col > 0 {
			e.Col = int(pos.Col)
		}
	}
}

func moreErrors(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return "\n" + strings.Join(rest, "\n")
}

func backtrace(stack star.CallStack) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):")
	for _, fr := range stack {
		fmt.Fprintf(&b, "\n  %s: in %s", fr.Pos, fr.Name)
	}
	return b.String()
}
