package testrunner

import (
	"context"
	"time"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/lua"
)

func init() { languages[".lua"] = luaLanguage{} }

// luaLanguage runs *_test.lua files.
type luaLanguage struct{}

var _ language = luaLanguage{}

func (luaLanguage) interp(host *script.Host, opts Options) *lua.Interp {
	now := opts.Now
	return lua.New(host, lua.Options{Now: func() time.Time { return now }, Testing: true})
}

func (l luaLanguage) tests(ctx context.Context, host *script.Host, opts Options, path string) ([]string, error) {
	in := l.interp(host, opts)
	defer in.Close()
	g, err := in.ExecFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return lua.TestNames(g), nil
}

func (l luaLanguage) run(ctx context.Context, host *script.Host, opts Options, path, name string) error {
	in := l.interp(host, opts)
	defer in.Close()
	g, err := in.ExecFile(ctx, path)
	if err != nil {
		return err
	}
	return in.CallGlobal(ctx, g, name)
}
