package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// longRun is what a long scripted session measured: its conversation's
// requests (summary requests apart), in bytes of JSON and estimated
// tokens, and its compactions.
type longRun struct {
	requests, compactions int
	maxBytes, sumBytes    int
	maxTokens, sumTokens  int
	maxSummaryBytes       int
	finalMessages, turns  int
	resultBytes           int
}

// runLong runs one prompt of turns turns with a scripted model that calls
// read every turn but the last; each result is resultBytes of text. A
// window of 0 never compacts.
func runLong(tb testing.TB, turns, resultBytes, window int) longRun {
	tb.Helper()
	st := longRun{resultBytes: resultBytes}
	var a *Agent
	made := 0
	p := provider.Func{Label: "bench", Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
		b, err := json.Marshal(req)
		if err != nil {
			return provider.Response{}, err
		}
		if req.System == SummaryInstruction {
			st.maxSummaryBytes = max(st.maxSummaryBytes, len(b))
			return provider.Response{Content: fmt.Sprintf("Read files 1 to %d; each held lines of text. Carry on reading.", made)}, nil
		}
		tok := a.requestTokens(req.Messages)
		st.requests++
		st.sumBytes += len(b)
		st.maxBytes = max(st.maxBytes, len(b))
		st.sumTokens += tok
		st.maxTokens = max(st.maxTokens, tok)
		if made+1 >= turns {
			return provider.Response{Content: "done"}, nil
		}
		made++
		return provider.Response{Content: "reading the next file", ToolCalls: []provider.ToolCall{
			{ID: fmt.Sprintf("call_%d", made), Name: "read", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, made))}}}, nil
	}}
	line := "a line of the file, as a tool would return it\n"
	body := strings.Repeat(line, max(1, resultBytes/len(line)))
	a, err := New(WithProvider(p), WithPermissions(executor.PermissionsAllowAll), WithMaxTurns(turns+1),
		WithSystemPrompt("You are a test."), WithContextWindow(window),
		WithObserver(func(e Event) {
			if e.Type == "compaction" {
				st.compactions++
			}
		}))
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	if err := a.RegisterTools(goTool("read", func(context.Context, json.RawMessage) (any, error) { return body, nil })); err != nil {
		tb.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "Read every file, one per turn.")
	if err != nil {
		tb.Fatal(err)
	}
	st.turns, st.finalMessages = reply.Turns, len(a.Messages())
	return st
}

// TestCompactionLongRun: a 500-turn session with a small window keeps
// every request within the window, compacting again and again, where
// the same session without compaction grows past it.
func TestCompactionLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a 500-turn session")
	}
	const window = 8000
	st := runLong(t, 500, 2000, window)
	if st.turns != 500 || st.requests != 500 {
		t.Fatalf("%d turns, %d requests, want 500", st.turns, st.requests)
	}
	if st.maxTokens > window || st.compactions < 20 {
		t.Errorf("largest request about %d tokens with a window of %d, %d compactions", st.maxTokens, window, st.compactions)
	}
	if st.finalMessages > 40 || st.maxSummaryBytes/bytesPerToken > window {
		t.Errorf("%d messages at the end, largest summary request %d bytes", st.finalMessages, st.maxSummaryBytes)
	}
	// Without compaction, a tenth of the session outgrows the window.
	if short := runLong(t, 50, 2000, 0); short.maxTokens < 2*window || short.compactions != 0 {
		t.Errorf("without compaction, 50 turns: largest request %d tokens, %d compactions", short.maxTokens, short.compactions)
	}
}

// BenchmarkCompaction500: request sizes in a 500-turn scripted session
// (a 2,000-byte tool result every turn), without compaction and with an
// 8,000-token window: the largest and the mean request in bytes of JSON
// and in estimated tokens, and the number of compactions.
//
//	go test ./agent/ -run '^$' -bench Compaction500 -benchtime 1x
func BenchmarkCompaction500(b *testing.B) {
	for _, bc := range []struct {
		name   string
		window int
	}{{"without", 0}, {"window=8000", 8000}} {
		b.Run(bc.name, func(b *testing.B) {
			var st longRun
			for i := 0; i < b.N; i++ {
				st = runLong(b, 500, 2000, bc.window)
			}
			b.ReportMetric(float64(st.maxBytes), "max-req-B")
			b.ReportMetric(float64(st.sumBytes)/float64(st.requests), "mean-req-B")
			b.ReportMetric(float64(st.maxTokens), "max-req-tok")
			b.ReportMetric(float64(st.sumTokens)/float64(st.requests), "mean-req-tok")
			b.ReportMetric(float64(st.compactions), "compactions")
			b.ReportMetric(float64(st.maxSummaryBytes), "max-summary-req-B")
		})
	}
}
