package core

import (
	"context"
	"io"
)

// streamKey is the context key of an output stream.
type streamKey struct{}

// outputStream is the value under streamKey: a stream a caller asked for,
// or one the executor granted to the call being run.
type outputStream struct {
	w       io.Writer
	granted bool
}

// WithOutputStream asks that the output of the call made with the
// returned context be written to w as it is produced (see the package
// doc's Output streams). w must be safe to use from the goroutine the
// call runs on; a write that fails stops the tool.
func WithOutputStream(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, streamKey{}, outputStream{w: w})
}

// OutputStream returns the stream granted to the tool whose context ctx
// is, or nil when it has none.
func OutputStream(ctx context.Context) io.Writer {
	s, _ := ctx.Value(streamKey{}).(outputStream)
	if !s.granted {
		return nil
	}
	return s.w
}

// TakeOutputStream is for executors. It returns the stream a caller asked
// for with ctx (nil if none), and ctx without any stream, asked for or
// granted, so that nothing the call runs (hooks, nested calls) sees one.
// A context without a stream is returned unchanged.
func TakeOutputStream(ctx context.Context) (context.Context, io.Writer) {
	s, ok := ctx.Value(streamKey{}).(outputStream)
	if !ok || s.w == nil {
		return ctx, nil
	}
	ctx = context.WithValue(ctx, streamKey{}, outputStream{})
	if s.granted {
		return ctx, nil
	}
	return ctx, s.w
}

// GrantOutputStream is for executors: it returns ctx with w granted to
// the tool it is passed to (see OutputStream).
func GrantOutputStream(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, streamKey{}, outputStream{w: w, granted: true})
}

// StreamedOutput is what a tool returns when it has written its output to
// the stream granted to it: the result gets Streamed set and no output.
type StreamedOutput struct{}
