package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// installFault sets faultHook from spec, the value of AGENTSH_TEST_FAULT
// in a test binary acting as agentsh: items separated by ";",
//
//	trace=FILE                append "POINT<tab>STEP" to FILE at every fault point
//	kill=POINT/STEP/SEQ       SIGKILL this process at POINT (before, start, end,
//	                          after) of the SEQth step named STEP ("run append")
//	kill=POINT/STEP/SEQ@D     the same, but from another thread D (a Go
//	                          duration) after the point, while the step goes on:
//	                          after "end", that is inside the journal write
//
// A step's SEQ counts the steps of its name from 1 in the order the run
// reaches them, which is the same in every execution of a run (a resume
// goes through the journaled steps first, at points before and after
// only). An empty spec leaves faultHook nil.
func installFault(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	var (
		trace *os.File
		kill  faultPoint
		delay = time.Duration(-1)
	)
	for _, item := range strings.Split(spec, ";") {
		key, val, _ := strings.Cut(item, "=")
		switch key {
		case "trace":
			f, err := os.OpenFile(val, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return err
			}
			trace = f
		case "kill":
			at, after, timed := strings.Cut(val, "@")
			// STEP may hold "/" (model replay:/path/rec.jsonl).
			point, rest, _ := strings.Cut(at, "/")
			i := strings.LastIndex(rest, "/")
			seq := 0
			if i >= 0 {
				seq, _ = strconv.Atoi(rest[i+1:])
			}
			if seq < 1 {
				return fmt.Errorf("kill=%s: want POINT/STEP/SEQ, SEQ from 1, optionally @DURATION", val)
			}
			kill = faultPoint{Point: point, Step: rest[:i], Seq: seq}
			if timed {
				var err error
				if delay, err = time.ParseDuration(after); err != nil || delay < 0 {
					return fmt.Errorf("kill=%s: want a duration after @ such as 100us", val)
				}
			}
		default:
			return fmt.Errorf("%q: want trace=FILE or kill=POINT/STEP/SEQ[@DURATION]", item)
		}
	}
	var (
		mu    sync.Mutex
		seqs  = map[string]int{}
		armed atomic.Bool
	)
	faultHook = func(point, step string) {
		mu.Lock()
		if point == "before" {
			seqs[step]++
		}
		here := faultPoint{Point: point, Step: step, Seq: seqs[step]}
		if trace != nil {
			// One write per point, unbuffered: a SIGKILL loses none.
			fmt.Fprintf(trace, "%s\t%s\n", point, step)
		}
		mu.Unlock()
		switch {
		case here == kill && delay < 0:
			killSelf()
		case here == kill:
			armed.Store(true)
		case delay >= 0 && point == "before" && step == kill.Step && here.Seq == kill.Seq:
			// The killer spins on a thread of its own from the start
			// of the step, so that it kills the delay after the point
			// without waiting to be scheduled.
			go func() {
				runtime.LockOSThread()
				for !armed.Load() {
				}
				for start := time.Now(); time.Since(start) < delay; {
				}
				killSelf()
			}()
		}
	}
	return nil
}

// faultPoint is a point of one step of a run.
type faultPoint struct {
	Point string // before, start, end, after
	Step  string // the step's name, such as "run append"
	Seq   int    // which of the steps of that name, from 1
}

func (p faultPoint) String() string { return fmt.Sprintf("%s/%s/%d", p.Point, p.Step, p.Seq) }

// killSelf ends this process as a crash would: SIGKILL, which nothing
// can catch or defer.
func killSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
