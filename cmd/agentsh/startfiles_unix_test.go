//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// TestStartupSpecialFiles: --output-schema and --prices refuse a FIFO, a
// device and a file over their 1 MiB cap at once, naming the flag and
// what the path is, and --json still ends with the error and result
// events. A regression hangs on the FIFO or fills memory from /dev/zero;
// a timeout and a memory cap make it fail instead.
func TestStartupSpecialFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model.star")
	if err := os.WriteFile(model, []byte("model(lambda messages, tools: 'hi')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, path, want string
	}{
		{"schema fifo", "--output-schema", fifo, "--output-schema " + fifo + " is a named pipe, not a regular file; give the path of a JSON Schema file of at most 1 MiB"},
		{"schema device", "--output-schema", "/dev/zero", "--output-schema /dev/zero is a character device, not a regular file; give the path of a JSON Schema file of at most 1 MiB"},
		{"schema directory", "--output-schema", dir, "--output-schema " + dir + " is a directory, not a regular file"},
		{"schema too large", "--output-schema", big, "--output-schema " + big + " is 2097152 bytes, larger than the limit of 1048576 bytes"},
		{"prices fifo", "--prices", fifo, "--prices: price file " + fifo + " is a named pipe, not a regular file; a price table is a JSON file of a few kilobytes"},
		{"prices device", "--prices", "/dev/zero", "--prices: price file /dev/zero is a character device, not a regular file"},
		{"prices too large", "--prices", big, "--prices: price file " + big + " is 2097152 bytes, larger than the limit of 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := agentshCmd(t, "--no-builtins", "--load", model, "--json", tt.flag, tt.path, "ask", "go")
			// Under a cap on its address space, a regression that reads
			// /dev/zero fails at once rather than taking the machine's memory.
			cmd.Args = append([]string{"sh", "-c", `ulimit -v 6000000 && exec "$0" "$@"`}, cmd.Args...)
			cmd.Path = "/bin/sh"
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(testwait.Step):
				cmd.Process.Kill()
				<-done
				t.Fatalf("agentsh %s %s did not return: it waits on the file or reads it without end", tt.flag, tt.path)
			}
			if code := exitCode(t, err); code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], `"event":"error","exit_code":2,"message":"`+tt.want) ||
				!strings.Contains(lines[1], `"event":"result","exit_code":2,`) {
				t.Errorf("stdout:\n%s\nwant an error event with %q, then the result", stdout.String(), tt.want)
			}
		})
	}
}
