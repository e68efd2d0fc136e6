package script

import "context"

// Interrupted returns err, a script error, marked as caused by the end of
// ctx when ctx has ended: the result reads as err, and errors.Is matches
// both err's chain and ctx's error (context.Canceled or
// context.DeadlineExceeded). When ctx has not ended it returns err.
func Interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return &interrupted{err: err, ctx: ctx.Err()}
}

type interrupted struct {
	err error
	ctx error
}

func (i *interrupted) Error() string   { return i.err.Error() }
func (i *interrupted) Unwrap() []error { return []error{i.err, i.ctx} }
