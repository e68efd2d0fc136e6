package script

import (
	"context"
	"errors"
	"testing"
)

func TestInterrupted(t *testing.T) {
	base := errors.New("x.star:1:1: canceled")
	if got := Interrupted(context.Background(), base); got != base {
		t.Errorf("live context: got %v, want the error itself", got)
	}
	if Interrupted(context.Background(), nil) != nil {
		t.Error("nil error: want nil")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Interrupted(ctx, base)
	if err.Error() != base.Error() {
		t.Errorf("message %q, want %q", err, base)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, base) {
		t.Errorf("errors.Is: want both context.Canceled and the script error in %v", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Error("a cancelled context must not match DeadlineExceeded")
	}
}
