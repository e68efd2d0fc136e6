package process

import (
	"testing"
	"time"
)

func TestLimitsExceeded(t *testing.T) {
	l := Limits{Memory: 64 << 20, CPU: 1500 * time.Millisecond}
	tests := []struct {
		name string
		res  SelfResult
		want string // "" for nil
	}{
		{"out of memory", SelfResult{ExitCode: 2, Stderr: []byte("runtime: out of memory: cannot allocate 134217728-byte block\nfatal error: out of memory\n")}, "exceeded the memory limit (64 MiB)"},
		{"mmap failed", SelfResult{ExitCode: 2, Stderr: []byte("runtime: mmap: cannot allocate memory\nfatal error: runtime: cannot allocate memory\n")}, "exceeded the memory limit (64 MiB)"},
		{"no thread", SelfResult{ExitCode: 2, Stderr: []byte("runtime: failed to create new OS thread\n")}, "exceeded the memory limit (64 MiB)"},
		{"race heap", SelfResult{ExitCode: 2, Stderr: []byte("fatal error: too many address space collisions for -race mode\n")}, "exceeded the memory limit (64 MiB)"},
		{"race shadow", SelfResult{ExitCode: 66, Stderr: []byte("==1184==ERROR: ThreadSanitizer failed to allocate 0x8000000 (134217728) bytes at address 218008000000 (errno: 12)\n")}, "exceeded the memory limit (64 MiB)"},
		{"stack", SelfResult{ExitCode: 2, Stderr: []byte("runtime: goroutine stack exceeds 16777216-byte limit\nfatal error: stack overflow\n")}, "exceeded the stack limit (16 MiB)"},
		{"cpu", SelfResult{ExitCode: 137, CPUTime: 2 * time.Second}, "exceeded the cpu time limit (2s)"},
		{"xcpu", SelfResult{ExitCode: 128 + 24, CPUTime: 2*time.Second - 10*time.Millisecond}, "exceeded the cpu time limit (2s)"},
		{"killed early", SelfResult{ExitCode: 137, CPUTime: time.Second}, ""},
		{"killed by us", SelfResult{ExitCode: 137, Killed: true, CPUTime: 5 * time.Second, Stderr: []byte("fatal error: out of memory")}, ""},
		{"exit 0", SelfResult{ExitCode: 0, Stderr: []byte("out of memory")}, ""},
		{"panic", SelfResult{ExitCode: 2, Stderr: []byte("panic: boom\n")}, ""},
	}
	for _, tt := range tests {
		err := l.Exceeded(tt.res)
		got := ""
		if err != nil {
			if _, ok := err.(*LimitError); !ok {
				t.Errorf("%s: %T, want *LimitError", tt.name, err)
			}
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := (Limits{}).Exceeded(SelfResult{ExitCode: 2, Stderr: []byte("fatal error: out of memory")}).Error(); got != "exceeded the memory limit (256 MiB)" {
		t.Errorf("zero Limits: %q, want the default memory limit", got)
	}
	e := &LimitError{Resource: "memory", Limit: "1 MiB", Hint: "raise it"}
	if got, want := e.Error(), "exceeded the memory limit (1 MiB); raise it"; got != want {
		t.Errorf("with a hint: %q, want %q", got, want)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 1 << 10: "1 KiB", 1536: "1536 bytes", 3 << 19: "1536 KiB", 256 << 20: "256 MiB", 1 << 40: "1048576 MiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
