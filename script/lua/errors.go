package lua

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// position matches the "file:line: " that Lua puts before messages.
var position = regexp.MustCompile(`^([^\s:][^:\n]*:\d+): `)

// goError is the Value of a userdata raised as an error by a built-in that
// has a Go error to report (errors.As finds it through *script.Error).
type goError struct{ err error }

func (goError) typeName() string { return "error" }

// wrapError converts gopher-lua's errors into *script.Error, with the
// traceback printed after the message, as Lua does.
func wrapError(err error) error {
	if err == nil {
		return nil
	}
	var le *script.Error
	if errors.As(err, &le) {
		return err
	}
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err
	}
	if ae.Type == lua.ApiErrorSyntax {
		return syntaxError(err)
	}
	e := &script.Error{Backtrace: ae.StackTrace, BacktraceLast: true, Err: err}
	if ud, ok := ae.Object.(*lua.LUserData); ok {
		if g, ok := ud.Value.(goError); ok {
			e.Err = g.err
			e.Msg = g.err.Error()
			e.ParsePos(tracebackPos(e.Backtrace))
			return e
		}
	}
	msg := ae.Object.String()
	if m := position.FindStringSubmatch(msg); m != nil {
		e.ParsePos(m[1])
		msg = msg[len(m[0]):]
	}
	e.Msg = msg
	if sb := script.StepBudgetIn(msg, err); sb != nil {
		e.Err = sb // gopher-lua raises the context's error as text
	}
	return e
}

// tracebackPos is the first file:line in a traceback.
func tracebackPos(tb string) string {
	for _, line := range strings.Split(tb, "\n") {
		line = strings.TrimSpace(line)
		if m := position.FindStringSubmatch(line + " "); m != nil && !strings.HasPrefix(line, "[G]") {
			return m[1]
		}
	}
	return ""
}

// syntaxError converts a compile error: file:line: message.
func syntaxError(err error) error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		e := &script.Error{Msg: strings.TrimSpace(pe.Message), File: pe.Pos.Source, Err: err}
		if pe.Pos.Line == parse.EOF {
			e.Msg += " at end of input"
		} else {
			e.Line = pe.Pos.Line
			if pe.Token != "" {
				e.Msg += " near '" + pe.Token + "'"
			}
		}
		return e
	}
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if ae.Cause != nil && ae.Cause != err {
			return syntaxError(ae.Cause)
		}
		return &script.Error{Msg: strings.TrimSpace(ae.Object.String()), Err: err}
	}
	return err
}

// incomplete reports whether err is a syntax error at the end of the
// input, which more lines could complete (the REPL reads on).
func incomplete(err error) bool {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Pos.Line == parse.EOF
	}
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if ae.Cause != nil && ae.Cause != err {
			return incomplete(ae.Cause)
		}
		return strings.Contains(ae.Object.String(), "at EOF")
	}
	return false
}

// renameOuterFrame names the outermost frame of a function called from Go
// (Lua can only call it the main chunk).
func renameOuterFrame(err error, name string) error {
	var e *script.Error
	if errors.As(err, &e) {
		if i := strings.LastIndex(e.Backtrace, " in main chunk"); i >= 0 && !strings.Contains(e.Backtrace[i+1:], "\n") {
			e.Backtrace = e.Backtrace[:i] + " in function '" + name + "'"
		}
	}
	return err
}

// maxTraceFrames bounds a traceback: the innermost and outermost frames are
// kept, the middle elided.
const maxTraceFrames = 20

// traceback lists L's frames below the running error handler, innermost
// first, in Lua's format.
func traceback(L *lua.LState) string {
	var lines []string
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sln", dbg, lua.LNil); err != nil {
			break
		}
		lines = append(lines, "\t"+frameText(dbg))
		if dbg.What == "main" {
			// The outermost frame. (Past it, GetStack keeps answering with
			// the bottom frame, once for every tail call made.)
			break
		}
	}
	if len(lines) > maxTraceFrames {
		head, tail := lines[:maxTraceFrames/2], lines[len(lines)-maxTraceFrames/2:]
		lines = append(append(head[:len(head):len(head)], "\t..."), tail...)
	}
	return "stack traceback:\n" + strings.Join(lines, "\n")
}

func frameText(dbg *lua.Debug) string {
	where := "[G]:"
	if dbg.What != "G" {
		where = fmt.Sprintf("%s:%d:", dbg.Source, dbg.CurrentLine)
	}
	switch {
	case dbg.What == "main":
		return where + " in main chunk"
	case dbg.Name != "" && !strings.ContainsAny(dbg.Name[:1], "(<"):
		return where + " in function '" + dbg.Name + "'"
	case dbg.What == "G":
		return where + " in a Go function"
	}
	return fmt.Sprintf("%s in function <%s:%d>", where, dbg.Source, dbg.LineDefined)
}

// overflowError is the error of a PCall that panicked because the value
// stack was full.
func overflowError(r any) error {
	if ae, ok := r.(*lua.ApiError); ok {
		return ae
	}
	return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(fmt.Sprint(r))}
}
