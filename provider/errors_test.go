package provider

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestStatusKind(t *testing.T) {
	for status, want := range map[int]Kind{401: ErrAuth, 403: ErrAuth, 429: ErrRateLimited, 500: ErrServer,
		529: ErrServer, 400: ErrBadRequest, 404: ErrBadRequest, 200: ErrProtocol, 0: ErrProtocol} {
		if got := StatusKind(status); got != want {
			t.Errorf("StatusKind(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestError(t *testing.T) {
	e := &Error{Kind: ErrAuth, Provider: "openai", Status: 401, Message: "invalid key", Err: io.EOF}
	if got := e.Error(); got != "openai: HTTP 401: invalid key (check the provider's API key)" {
		t.Errorf("Error() = %q", got)
	}
	e.Hint = "set MYCO_KEY"
	if got := e.Error(); got != "openai: HTTP 401: invalid key (set MYCO_KEY)" {
		t.Errorf("Error() with the adapter's hint = %q, want it in place of the general one", got)
	}
	var err error = e
	if !errors.Is(err, ErrAuth) || !errors.Is(err, io.EOF) || errors.Is(err, ErrServer) || KindOf(err) != ErrAuth {
		t.Error("errors.Is/KindOf do not see the kind and the cause")
	}
	if KindOf(errors.New("x")) != "" {
		t.Error("KindOf of a plain error")
	}
	plain := (&Error{Kind: ErrServer, Provider: "anthropic", Message: "overloaded"}).Error()
	if plain != "anthropic: overloaded" || strings.Contains(plain, "(") {
		t.Errorf("Error() without status or hint = %q", plain)
	}
}

func TestFuncStreamsItsText(t *testing.T) {
	var got []string
	f := Func{Fn: func(_ context.Context, req Request) (Response, error) { return Response{Content: "hi"}, nil }}
	if _, err := f.Complete(context.Background(), Request{}, func(s string) { got = append(got, s) }); err != nil || len(got) != 1 || got[0] != "hi" {
		t.Errorf("streamed %q, %v", got, err)
	}
	if f.Name() != "scripted" || (Func{Label: "x"}).Name() != "x" {
		t.Error("names")
	}
}
