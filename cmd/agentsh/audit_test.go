package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh"
)

// agentsh hook --audit FILE: hook processes that run at once append
// their decide records (pre-tool) and observe records (post-tool) to one
// chain; a log that cannot be written blocks the call.
func TestHookAudit(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.star", `
def decide(call):
    if "denied" in call.args.get("command", ""):
        return deny("no denied markers")
before(decide)
`)
	log := filepath.Join(dir, "audit.jsonl")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.Command(exe, "hook", "claude-code", "--load", policy, "--audit", log)
			cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0", "XDG_STATE_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s%d","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch denied-%d"}}`, i, dir, i))
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), `"permissionDecision":"deny"`) {
				t.Errorf("process %d: %v: %s", i, err, out)
			}
		})
	}
	wg.Wait()
	post := `{"session_id":"s3","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"a.txt"}`
	if code, out, errs := runHook(t, t.TempDir(), post, "claude-code", "--load", policy, "--audit", log); code != 0 || out != "" || errs != "" {
		t.Fatalf("post-tool: exit %d stdout %q stderr %q", code, out, errs)
	}
	rep, err := agentsh.VerifyAuditFile(log, "")
	if err != nil || !rep.Intact() || rep.Records != 3 {
		t.Fatalf("VerifyAuditFile = %+v, %v; want 3 intact records", rep, err)
	}
	f, _ := os.Open(log)
	defer f.Close()
	var decided []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Kind, Via string
			Call      struct {
				Tool, Origin string
				Args         json.RawMessage
			}
			Outcome struct{ Verdict, Hook, Answered string }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		decided = append(decided, fmt.Sprintf("%s %s %s %s %s %s/%s", r.Kind, r.Via, r.Call.Tool, r.Call.Origin, r.Call.Args, r.Outcome.Verdict, r.Outcome.Answered))
	}
	// The arguments are the agent's mapped onto bash's, with the
	// event's cwd as the workdir.
	want := map[string]bool{
		fmt.Sprintf(`decide hook claude-code bash hook {"command":"touch denied-0","workdir":%q} deny/deny`, dir): true,
		fmt.Sprintf(`decide hook claude-code bash hook {"command":"touch denied-1","workdir":%q} deny/deny`, dir): true,
	}
	if len(decided) != 3 || !want[decided[0]] || !want[decided[1]] || decided[0] == decided[1] ||
		!strings.HasPrefix(decided[2], `observe hook claude-code bash hook {"command":"ls","workdir":`) || !strings.HasSuffix(decided[2], "} none/") {
		t.Errorf("records:\n%s", strings.Join(decided, "\n"))
	}

	// No record, no call: a log that cannot be written blocks.
	pre := `{"session_id":"s4","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	code, out, errs := runHook(t, t.TempDir(), pre, "claude-code", "--load", policy, "--audit", dir)
	if code != 2 || out != "" || !strings.Contains(errs, "--audit "+dir+": "+dir+" is a directory, not a regular file") {
		t.Errorf("a directory as the log: exit %d stdout %q stderr %q, want exit 2 naming it", code, out, errs)
	}
}
