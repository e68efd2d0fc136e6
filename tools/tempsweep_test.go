//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A directory swept clean is not swept again until an entry appears in
// it; a stale temporary file that appears later is still removed by the
// next write.
func TestSweepSkipsUnchangedDirectories(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	write := func(name string) {
		t.Helper()
		if err := replaceFile(ctx, root, name, []byte("x\n"), 0o644, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt")
	st, err := root.Stat(".")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := fileID(st)
	if got, ok := swept.Load(id); !ok || !got.(time.Time).Equal(st.ModTime()) {
		t.Fatalf("after a clean sweep and a write the directory is not marked swept (%v, %v)", got, ok)
	}
	if !removeStaleTemps(ctx, root) {
		t.Error("an unchanged directory swept clean is not reported clean")
	}

	// A killed writer's leftover: unlocked and not empty. Its creation
	// changes the directory, so the next write sweeps again.
	stale := tempPrefix + "0123456789abcdef"
	if err := os.WriteFile(filepath.Join(dir, stale), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	write("b.txt")
	if _, err := os.Lstat(filepath.Join(dir, stale)); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file survived the next write: %v", err)
	}

	// A temporary file that cannot be removed (a directory of that name)
	// keeps the directory from being marked clean.
	if err := os.Mkdir(filepath.Join(dir, tempPrefix+"fedcba9876543210"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("c.txt")
	st, _ = root.Stat(".")
	id, _ = fileID(st)
	if _, ok := swept.Load(id); ok {
		t.Error("a directory with a temporary name left in it is marked swept")
	}
}
