package durable

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Spec is what a run is: everything a process needs to execute it again
// from the start. It is the workflow's input, stored when the run starts.
type Spec struct {
	// ID names the run; Start makes one when it is empty.
	ID string `json:"id"`
	// Script is the absolute path of the script the run executes ("" for
	// an ask), and ScriptHash the SHA-256 of its content when the run
	// started: a resume refuses a script that changed (see ResumeOptions).
	Script     string `json:"script,omitempty"`
	ScriptHash string `json:"script_hash,omitempty"`
	// Args are the script's arguments.
	Args []string `json:"args,omitempty"`
	// Prompt is the prompt of an ask run.
	Prompt string `json:"prompt,omitempty"`
	// WorkDir is the absolute working directory.
	WorkDir string `json:"workdir"`
	// Settings are the run's settings as its client gave them (the
	// command-line flags of agentsh), for the Runner to compose the same
	// shell on every execution.
	Settings []string `json:"settings,omitempty"`
	// Approve is how the run's asks are answered when no person is at a
	// terminal: "never", "always" or "defer" (see Approval).
	Approve string `json:"approve,omitempty"`
	// ApprovalTTL is how long a deferred approval waits, in seconds; 0 is
	// DefaultApprovalTTL.
	ApprovalTTL int64 `json:"approval_ttl,omitempty"`
	// Task is a batch task: one line of the tasks file, given to the
	// script as the global task; Batch and Index name the batch and the
	// task's place in it.
	Task  json.RawMessage `json:"task,omitempty"`
	Batch string          `json:"batch,omitempty"`
	Index int             `json:"index,omitempty"`
}

// Outcome is how a run ended: the workflow's output.
type Outcome struct {
	// ExitCode is the process exit code the run would have had without
	// the journal (0 ok, 1 a script error, ...).
	ExitCode int `json:"exit_code"`
	// Stdout is everything the run printed, from its start.
	Stdout string `json:"stdout"`
	// Result is the run's result event (see agentsh's --json), if the
	// Runner gives one.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the message of the error that ended the run, if any.
	Error string `json:"error,omitempty"`
}

// idPattern is what a run id may be, ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$:
// it names files and appears in commands, so it stays plain. (Compiled
// when first used: every agentsh process links this package, and few
// check an id.)
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// CheckID reports whether id can name a run.
func CheckID(id string) error {
	if !idPattern().MatchString(id) {
		return fmt.Errorf("run id %q: want 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit", id)
	}
	return nil
}

// HashFile returns the SHA-256 of the file's content, in hex.
func HashFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return HashBytes(b), nil
}

// HashBytes returns the SHA-256 of b, in hex.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PolicyHash is what deferred approvals are bound to: a run's settings and
// the content of its files (script, policies) as this execution reads
// them, so that an approval given for one script is not used by another.
// An empty name is skipped; a file that cannot be read counts as its error.
func PolicyHash(settings []string, files ...string) string {
	parts := append([]string(nil), settings...)
	for _, f := range files {
		if f == "" {
			continue
		}
		h, err := HashFile(f)
		if err != nil {
			h = "unreadable: " + err.Error()
		}
		parts = append(parts, f+"\x01"+h)
	}
	return HashBytes([]byte(strings.Join(parts, "\x00")))
}
