package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runGo runs the go command in dir and returns its standard output; a
// failure's error holds what it printed.
func runGo(ctx context.Context, dir string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, "go", args...)
	c.Dir = dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// moduleRoot is the directory of the go.mod that governs dir; it must be
// agentsh's.
func moduleRoot(ctx context.Context, dir string) (string, error) {
	gomod, err := runGo(ctx, dir, "env", "GOMOD")
	if err != nil {
		return "", err
	}
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("%s is not inside a Go module; run the harness from an agentsh checkout or pass --repo", dir)
	}
	root := filepath.Dir(gomod)
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(data, []byte("module github.com/agentsh/agentsh\n")) {
		return "", fmt.Errorf("%s is not agentsh's go.mod; run the harness from an agentsh checkout or pass --repo", gomod)
	}
	return root, nil
}

// describe names the revision of the checkout at root, with "-dirty"
// when the working tree has changes ("" when git cannot say).
func describe(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty", "--abbrev=7").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// extractRev writes the tree of revision rev of the repository at repo
// into dir (git archive | tar -x: no work tree to remove afterwards, and
// the repository's state is not touched) and returns rev's short hash.
func extractRev(ctx context.Context, repo, rev, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", "--short=7", rev+"^{commit}").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("--base %q is not a revision of %s: %s", rev, repo, strings.TrimSpace(string(out)))
	}
	short := strings.TrimSpace(string(out))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := pipeline{
		{path: "git", args: []string{"-C", repo, "archive", "--format=tar", short}},
		{path: "tar", args: []string{"-x", "-C", dir}},
	}
	if _, err := p.run(ctx, io.Discard); err != nil {
		return "", fmt.Errorf("extract %s: %w", rev, err)
	}
	return short, nil
}

// buildAgentsh builds cmd/agentsh of the module at root into out.
func buildAgentsh(ctx context.Context, root, out string) error {
	_, err := runGo(ctx, root, "build", "-o", out, "./cmd/agentsh")
	return err
}
