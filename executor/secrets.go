package executor

import (
	"fmt"

	"github.com/agentsh/agentsh/workpath"
)

// Secret files: the patterns of files the tools that read many at once
// never read (see core.WithSecretFiles).

// WithSecretFiles sets the glob patterns of files that may hold secrets
// (see SetSecretFiles); a malformed pattern panics, as other options do.
func WithSecretFiles(patterns ...string) Option {
	return func(e *Executor) { must(e.SetSecretFiles(patterns)) }
}

// SetSecretFiles replaces the glob patterns (workpath.Match's syntax:
// *.pem, .env, .ssh/) of files that may hold secrets, for calls that
// start from now on: the tools that read many files at once (grep) skip
// them (see core.WithSecretFiles). A malformed pattern is an error and
// changes nothing.
func (e *Executor) SetSecretFiles(patterns []string) error {
	if err := workpath.CheckPatterns(patterns); err != nil {
		return fmt.Errorf("secret files: %w", err)
	}
	c := append([]string(nil), patterns...)
	e.secrets.Store(&c)
	return nil
}

// SecretFiles returns the patterns SetSecretFiles set.
func (e *Executor) SecretFiles() []string {
	if p := e.secrets.Load(); p != nil {
		return append([]string(nil), *p...)
	}
	return nil
}
