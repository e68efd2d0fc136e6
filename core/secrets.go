package core

import "context"

// secretsKey is the context key of the secret-file patterns a call runs
// under.
type secretsKey struct{}

// WithSecretFiles returns ctx carrying the glob patterns of files that
// may hold secrets (workpath.Match's syntax): tools that read many files
// at once (grep) skip them, so a search never prints what a policy
// refuses to read. The executor adds its own (executor.SetSecretFiles)
// to the context of every tool it runs.
func WithSecretFiles(ctx context.Context, patterns []string) context.Context {
	return context.WithValue(ctx, secretsKey{}, patterns)
}

// SecretFiles returns the patterns ctx carries; nil for none.
func SecretFiles(ctx context.Context) []string {
	p, _ := ctx.Value(secretsKey{}).([]string)
	return p
}
