package core_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// A stream a caller asks for is not the tool's until it is granted, and
// taking it leaves no stream, asked for or granted, in the context.
func TestOutputStreamRequestGrantTake(t *testing.T) {
	var w bytes.Buffer
	bg := context.Background()
	if ctx, got := core.TakeOutputStream(bg); ctx != bg || got != nil {
		t.Errorf("TakeOutputStream(no stream) = %v, %v; want the same context and nil", ctx, got)
	}
	asked := core.WithOutputStream(bg, &w)
	if core.OutputStream(asked) != nil {
		t.Error("OutputStream of a stream only asked for is not nil; want nil until it is granted")
	}
	rest, got := core.TakeOutputStream(asked)
	if got != &w {
		t.Errorf("TakeOutputStream(asked) = %v, want the writer asked for", got)
	}
	if _, again := core.TakeOutputStream(rest); again != nil || core.OutputStream(rest) != nil {
		t.Error("the context TakeOutputStream returns still carries a stream")
	}
	granted := core.GrantOutputStream(rest, &w)
	if core.OutputStream(granted) != &w {
		t.Error("OutputStream of a granted stream is not the writer")
	}
	if rest, again := core.TakeOutputStream(granted); again != nil || core.OutputStream(rest) != nil {
		t.Errorf("TakeOutputStream(granted) = %v; want nil, and no stream left: a grant is not a request for the calls nested in it", again)
	}
	var r core.Result
	if err := r.SetOutput(core.StreamedOutput{}); err != nil || !r.Streamed || r.ForLLM != "" || r.Data != nil {
		t.Errorf("SetOutput(StreamedOutput{}) = %v, result %+v; want Streamed and no output", err, r)
	}
}
