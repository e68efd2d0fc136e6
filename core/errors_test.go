package core_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestKindStrings(t *testing.T) {
	want := []string{"unknown_tool", "invalid_arguments", "rejected", "timeout", "canceled", "failed", "panic"}
	if len(core.Kinds) != len(want) {
		t.Fatalf("Kinds has %d entries, want %d", len(core.Kinds), len(want))
	}
	for i, k := range core.Kinds {
		if string(k) != want[i] || k.Error() != want[i] {
			t.Errorf("Kinds[%d] = %q", i, k)
		}
	}
	sentinels := []error{core.ErrUnknownTool, core.ErrInvalidArguments, core.ErrRejected, core.ErrTimeout, core.ErrCanceled, core.ErrFailed, core.ErrPanic}
	for i, s := range sentinels {
		if s != error(core.Kinds[i]) {
			t.Errorf("sentinel %d is %v, want %v", i, s, core.Kinds[i])
		}
	}
}

func TestErrorsIsEveryKind(t *testing.T) {
	cause := errors.New("cause")
	for _, k := range core.Kinds {
		e := &core.Error{Kind: k, Tool: "t", CallID: "c1", Message: "msg", Err: cause}
		wrapped := fmt.Errorf("outer: %w", e)
		for _, other := range core.Kinds {
			for _, err := range []error{e, wrapped} {
				if got := errors.Is(err, other); got != (other == k) {
					t.Errorf("errors.Is(%s error, %s) = %v", k, other, got)
				}
			}
		}
		if !errors.Is(wrapped, cause) {
			t.Errorf("%s: cause not reachable with errors.Is", k)
		}
		if core.KindOf(wrapped) != k || core.KindOf(e) != k {
			t.Errorf("KindOf(%s error) = %q", k, core.KindOf(wrapped))
		}
		if !errors.Is(k, k) || core.KindOf(k) != k {
			t.Errorf("a bare Kind %s is not itself", k)
		}
		var got *core.Error
		if !errors.As(wrapped, &got) || got != e {
			t.Errorf("errors.As did not find the *core.Error")
		}
	}
}

func TestKindOfPlainErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dctx, dcancel := context.WithTimeout(context.Background(), -1)
	defer dcancel()
	for _, c := range []struct {
		err  error
		want core.Kind
	}{
		{nil, ""},
		{context.DeadlineExceeded, core.KindTimeout},
		{context.Canceled, core.KindCanceled},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), core.KindTimeout},
		{fmt.Errorf("read: %w", context.Canceled), core.KindCanceled},
		{ctx.Err(), core.KindCanceled},
		{dctx.Err(), core.KindTimeout},
		{context.Cause(ctx), core.KindCanceled},
		{errors.New("boom"), core.KindFailed},
		{fmt.Errorf("wrapped kind: %w", core.ErrRejected), core.KindRejected},
		{errors.Join(errors.New("x"), core.ErrPanic), core.KindPanic},
		// The pipeline's classification wins over the cause's.
		{&core.Error{Kind: core.KindFailed, Err: context.DeadlineExceeded}, core.KindFailed},
	} {
		if got := core.KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	// A plain context error is not itself a Kind sentinel: KindOf classifies it.
	if errors.Is(context.DeadlineExceeded, core.ErrTimeout) {
		t.Error("context.DeadlineExceeded matches ErrTimeout by errors.Is; KindOf is the documented way")
	}
}

func TestErrorMessage(t *testing.T) {
	cause := errors.New("the cause")
	for _, c := range []struct {
		e    *core.Error
		want string
	}{
		{&core.Error{Kind: core.KindFailed, Message: "explicit", Err: cause}, "explicit"},
		{&core.Error{Kind: core.KindFailed, Err: cause}, "the cause"},
		{&core.Error{Kind: core.KindTimeout}, "timeout"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
	if (&core.Error{Kind: core.KindFailed}).Unwrap() != nil {
		t.Error("Unwrap without a cause")
	}
}
