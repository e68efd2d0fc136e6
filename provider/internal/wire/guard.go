package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/agentsh/agentsh/provider"
)

// attempt is one request under provider.Limits. Its context ends when the
// server has sent nothing for IdleTimeout, or when MaxDuration has passed,
// with the broken limit as the context's cause; the transport then gives
// up on the connection, and whoever waits on it learns why from cause.
type attempt struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	lim      provider.Limits
	provider string
	where    string // the URL, for messages
	idle     *time.Timer
	total    *time.Timer
	answered atomic.Bool // the response headers arrived
}

func startAttempt(parent context.Context, lim provider.Limits, name, where string) *attempt {
	a := &attempt{lim: lim, provider: name, where: where}
	a.ctx, a.cancel = context.WithCancelCause(parent)
	a.idle = time.AfterFunc(lim.IdleTimeout, func() {
		msg := fmt.Sprintf("no answer from %s within %v", a.where, lim.IdleTimeout)
		if a.answered.Load() {
			msg = fmt.Sprintf("%s sent nothing for %v in the middle of the answer", a.where, lim.IdleTimeout)
		}
		a.cancel(a.limitError(provider.ErrTimeout, msg))
	})
	a.total = time.AfterFunc(lim.MaxDuration, func() {
		a.cancel(a.limitError(provider.ErrTimeout, fmt.Sprintf("the answer from %s took longer than %v, the limit of one response", a.where, lim.MaxDuration)))
	})
	return a
}

func (a *attempt) limitError(kind provider.Kind, msg string) *provider.Error {
	return &provider.Error{Kind: kind, Provider: a.provider, Message: msg}
}

// broken returns the limit that ended the attempt, or nil.
func (a *attempt) broken() error {
	var pe *provider.Error
	if cause := context.Cause(a.ctx); errors.As(cause, &pe) {
		return pe
	}
	return nil
}

// stop ends the attempt and its timers.
func (a *attempt) stop() {
	a.idle.Stop()
	a.total.Stop()
	a.cancel(nil)
}

// body is a response body read under the attempt's limits.
type body struct {
	rc io.ReadCloser
	a  *attempt
	n  int64 // bytes read so far
}

func (b *body) Read(p []byte) (int, error) {
	max := b.a.lim.MaxBytes
	if b.n >= max {
		return 0, b.tooLarge()
	}
	// Read at most one byte beyond the cap: enough to know it was passed.
	if room := max - b.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.a.idle.Reset(b.a.lim.IdleTimeout)
	}
	b.n += int64(n)
	if b.n > max {
		n -= int(b.n - max)
		b.n = max
		return n, b.tooLarge()
	}
	if err != nil && err != io.EOF {
		if lim := b.a.broken(); lim != nil {
			return n, lim
		}
	}
	return n, err
}

func (b *body) tooLarge() error {
	err := b.a.limitError(provider.ErrTooLarge, fmt.Sprintf("the answer from %s is larger than %s, the limit of one response", b.a.where, size(b.a.lim.MaxBytes)))
	b.a.cancel(err)
	return err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.a.stop()
	return err
}

// size formats a byte count for a message: whole MiB or KiB when it is
// one, else bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
