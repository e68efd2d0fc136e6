package search

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// This file judges how an external program (rg, fd) ended. A program
// killed by a signal, or ending with a status it does not use for
// success, has printed an incomplete result: that is an error, never an
// empty or partial result. A program that could not read part of the
// tree says so on standard error, one message a file: "PATH: TEXT (os
// error N)" (fd puts "[fd error]: " first). Files that cannot be read for
// want of permission are skipped on every backend; any other such message
// (a path longer than PATH_MAX, a file gone while the program ran, ...)
// means the native walk, which opens every entry relative to its
// directory, could see what the program missed, so the native backend
// answers instead (the ripgrep backend: for what it has not emitted yet).
// Any other message is an error.

// stderrCap bounds what is kept of a program's standard error.
const stderrCap = 256 << 10

// cappedBuffer keeps the first stderrCap bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := stderrCap - b.Len(); len(p) > room {
		b.Buffer.Write(p[:max(room, 0)])
		b.overflow = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// checkExit returns an error if a program did not end with one of the
// exit statuses in ok.
func checkExit(name string, ps *os.ProcessState, werr error, stderr *cappedBuffer, ok ...int) error {
	if ps == nil {
		return fmt.Errorf("search: running %s: %w", name, werr)
	}
	code := ps.ExitCode()
	for _, c := range ok {
		if code == c {
			return nil
		}
	}
	detail := ""
	if v, text := judgeStderr(stderr); v == stderrOther {
		detail = ": " + text
	}
	return fmt.Errorf("search: %s ended abnormally (%s)%s; its result would be incomplete, so there is none: run the search again, or use the native backend, which runs no program", name, ps, detail)
}

// stderrVerdict is what a program's standard error says about its result.
type stderrVerdict int

const (
	stderrClean  stderrVerdict = iota // nothing, or only files no backend can read
	stderrMissed                      // files or directories the native walk could see were missed
	stderrOther                       // a message that is not about a file: an error
)

// judgeStderr reads a program's messages. For stderrOther it also returns
// the message, shortened to its first line.
func judgeStderr(b *cappedBuffer) (stderrVerdict, string) {
	s := b.Bytes()
	v := stderrClean
	for len(bytes.TrimSpace(s)) > 0 {
		i := bytes.Index(s, []byte("(os error "))
		if i < 0 {
			return stderrOther, firstLine(s)
		}
		rest := s[i+len("(os error "):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || j == len(rest) || rest[j] != ')' || j+1 < len(rest) && rest[j+1] != '\n' {
			return stderrOther, firstLine(s)
		}
		errno, _ := strconv.Atoi(string(rest[:j]))
		if syscall.Errno(errno) != syscall.EACCES && syscall.Errno(errno) != syscall.EPERM {
			v = stderrMissed
		}
		s = rest[j+1:]
	}
	if b.overflow {
		v = stderrMissed // messages were lost: not all of them were read
	}
	return v, ""
}

func firstLine(s []byte) string {
	s = bytes.TrimSpace(s)
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = append(s[:300:300], "..."...)
	}
	return string(s)
}
