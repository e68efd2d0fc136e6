package script

import (
	"strconv"
	"strings"
)

// Error is a script error of any language: where it happened, what went
// wrong and, for runtime errors, the call stack. Bindings return it for
// syntax errors, runtime errors and failed assertions alike, so a program
// that runs scripts reads one type whatever the language (errors.As finds
// it through Interrupted and through tool results).
type Error struct {
	// File, Line and Col locate the innermost script frame; Line and Col
	// are 0 when unknown (Lua keeps no columns).
	File      string
	Line, Col int
	// Msg is the message without the position.
	Msg string
	// Backtrace is the call stack in the language's own format (Starlark:
	// "Traceback (most recent call last):"; Lua: "stack traceback:"), or ""
	// for syntax errors.
	Backtrace string
	// BacktraceLast prints the backtrace after the message, as Lua does,
	// instead of before it, as Starlark (like Python) does.
	BacktraceLast bool
	// Err is the underlying error: the interpreter's own, or the Go error
	// a built-in raised (such as a *Skipped or an *AssertionError).
	Err error
}

// Pos is the error's position: file:line:col, file:line, file, or "".
func (e *Error) Pos() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteString(":" + strconv.Itoa(e.Col))
		}
	}
	return b.String()
}

// Error is the positioned message, "pos: msg".
func (e *Error) Error() string {
	if pos := e.Pos(); pos != "" {
		return pos + ": " + e.Msg
	}
	return e.Msg
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Detail is the message with the backtrace, in the language's order, for
// people reading a terminal.
func (e *Error) Detail() string {
	switch {
	case e.Backtrace == "":
		return e.Error()
	case e.BacktraceLast:
		return e.Error() + "\n" + e.Backtrace
	}
	return e.Backtrace + "\n" + e.Error()
}

// ParsePos sets File, Line and Col from a position written file:line or
// file:line:col (a name without numbers is all file).
func (e *Error) ParsePos(pos string) {
	e.File, e.Line, e.Col = pos, 0, 0
	rest := pos
	var nums []int
	for len(nums) < 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n <= 0 {
			break
		}
		nums = append(nums, n)
		rest = rest[:i]
	}
	switch len(nums) {
	case 1:
		e.File, e.Line = rest, nums[0]
	case 2:
		e.File, e.Line, e.Col = rest, nums[1], nums[0]
	}
}
