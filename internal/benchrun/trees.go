package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// tree is one of the search trees: the source at 1×, or n copies of it.
type tree struct {
	size int    // copies of the source
	dir  string // where the search runs
}

func (t tree) label() string { return fmt.Sprintf("%d×", t.size) }

// buildTrees returns the trees of the given sizes: size 1 is src itself;
// size n is n copies of it made with hard links (cp -al) under tmp, so
// they take no space and share src's page cache: a 16× tree is 16 times
// the files and the bytes to read, not 16 times the memory. Where hard
// links cannot be made (another file system), the copies are real and
// the note says so.
func buildTrees(ctx context.Context, src, tmp string, sizes []int) ([]tree, string, error) {
	var trees []tree
	note := "hard-linked copies (cp -al)"
	for _, n := range sizes {
		if n == 1 {
			trees = append(trees, tree{1, src})
			continue
		}
		dir := filepath.Join(tmp, fmt.Sprintf("tree%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
		for i := range n {
			dst := filepath.Join(dir, fmt.Sprintf("copy%02d", i))
			out, err := exec.CommandContext(ctx, "cp", "-al", src, dst).CombinedOutput()
			if err != nil {
				os.RemoveAll(dst)
				out2, err2 := exec.CommandContext(ctx, "cp", "-a", src, dst).CombinedOutput()
				if err2 != nil {
					return nil, "", fmt.Errorf("copy %s to %s: cp -al: %v: %s; cp -a: %v: %s", src, dst, err, strings.TrimSpace(string(out)), err2, strings.TrimSpace(string(out2)))
				}
				note = "real copies (cp -a; hard links failed: " + strings.TrimSpace(string(out)) + ")"
			}
		}
		trees = append(trees, tree{n, dir})
	}
	return trees, note, nil
}
