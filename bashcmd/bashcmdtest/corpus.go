package bashcmdtest

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The shell corpus (corpus.txt): command lines, dangerous and ordinary,
// with what the shipped policy deny_patterns.star must decide for each,
// shared by the classifier's tests, the policy's and the CLI's, which
// decide them through agentsh explain. Nothing may run them.

//go:embed corpus.txt
var corpusText string

// CorpusCase is one command line of the corpus.
type CorpusCase struct {
	// Dangerous: it must not run unconfined unasked. Otherwise it is
	// ordinary work, which must not be denied.
	Dangerous bool
	// Want is deny_patterns.star's decision for a model's bash call:
	// "deny", "leave" (asks to leave the sandbox), "ask" (asks, in the
	// sandbox), "sandbox" (runs in the workspace sandbox) or "safe"
	// (known safe: runs where the call would run).
	Want string
	Cmd  string
	Line int
}

// Corpus returns the corpus, in the order of the file.
func Corpus() ([]CorpusCase, error) { return parseCorpus(corpusText) }

func parseCorpus(text string) ([]CorpusCase, error) {
	var out []CorpusCase
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set, rest, _ := strings.Cut(line, " ")
		want, cmd, _ := strings.Cut(rest, " ")
		c := CorpusCase{Dangerous: set == "dangerous", Want: want, Cmd: cmd, Line: i + 1}
		if set != "dangerous" && set != "ordinary" {
			return nil, fmt.Errorf("corpus.txt:%d: set %q, want dangerous or ordinary", i+1, set)
		}
		switch want {
		case "deny", "leave", "ask", "sandbox", "safe":
		default:
			return nil, fmt.Errorf("corpus.txt:%d: want %q, want deny, leave, ask, sandbox or safe", i+1, want)
		}
		if strings.HasPrefix(cmd, `"`) {
			u, err := strconv.Unquote(cmd)
			if err != nil {
				return nil, fmt.Errorf("corpus.txt:%d: %v", i+1, err)
			}
			c.Cmd = u
		}
		if c.Cmd == "" {
			return nil, fmt.Errorf("corpus.txt:%d: no command", i+1)
		}
		out = append(out, c)
	}
	return out, nil
}
