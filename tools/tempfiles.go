package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
)

// Temporary files. A write goes to a temporary file in the target's
// directory, named ".agentsh-tmp-" and 16 lowercase hex digits, which is
// renamed over the target when it is complete. Its writer holds an
// exclusive flock on it from before the first byte until after the
// rename. A writer killed on the way (kill -9, a crash, power loss) leaves
// it behind; the next write in that directory removes it: a temporary
// file is stale when no process holds its lock (the kernel drops the
// locks of a process that dies) and it is not empty or is older than
// staleEmptyAge. The age covers only the instant between creating a file
// and locking it, when a live writer's file is empty and unlocked; a slow
// writer holds its lock and is never disturbed.

const (
	tempPrefix    = ".agentsh-tmp-"
	tempHexDigits = 16
	staleEmptyAge = time.Minute
	writeChunk    = 1 << 20 // bytes written between checks of ctx
)

// isTempName reports whether name has the form of a temporary file.
func isTempName(name string) bool {
	h, ok := strings.CutPrefix(name, tempPrefix)
	if !ok || len(h) != tempHexDigits {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// liveTemps holds the names of this process's own temporary files: on a
// filesystem that emulates flock with POSIX locks (NFS), a process's own
// lock does not keep it out, so it must not even look at its own files.
var liveTemps sync.Map

// testHookWrote, when set by a test, runs after each chunk a write puts
// in its temporary file.
var testHookWrote func(tmp string)

// replaceFile atomically replaces name in dir with data: it writes a
// locked temporary file, chmods it to mode, syncs it, runs check (when
// not nil; an error stops the write) and renames it over name. On
// failure it removes the temporary file. Stale temporary files of dead
// writers in dir are removed first.
func replaceFile(ctx context.Context, dir *os.Root, name string, data []byte, mode fs.FileMode, check func() error) error {
	removeStaleTemps(ctx, dir)
	tmp, f, err := createTemp(dir)
	if err != nil {
		return err
	}
	defer liveTemps.Delete(tmp)
	done := false
	defer func() {
		if !done {
			dir.Remove(tmp)
			f.Close()
		}
	}()
	for rest := data; len(rest) > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Write(rest[:min(len(rest), writeChunk)])
		if err != nil {
			return err
		}
		rest = rest[n:]
		if testHookWrote != nil {
			testHookWrote(tmp)
		}
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := dir.Rename(tmp, name); err != nil {
		return err
	}
	done = true
	// The lock goes only now: until the rename, the file is ours.
	return f.Close()
}

// createTemp creates and locks a new temporary file in dir.
func createTemp(dir *os.Root) (string, *os.File, error) {
	for range 10 {
		var b [tempHexDigits / 2]byte
		rand.Read(b[:])
		name := tempPrefix + hex.EncodeToString(b[:])
		liveTemps.Store(name, true)
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			liveTemps.Delete(name)
			continue
		}
		if err != nil {
			liveTemps.Delete(name)
			return "", nil, err
		}
		// Without flock support the write goes on unlocked; then no
		// cleaner can take a lock either, and none removes the file.
		tryLock(f)
		return name, f, nil
	}
	return "", nil, errors.New("could not create a temporary file with a new name")
}

// removeStaleTemps removes the stale temporary files in dir (see the top
// of this file). It is best effort: what it cannot read or lock stays.
func removeStaleTemps(ctx context.Context, dir *os.Root) {
	d, err := dir.OpenFile(".", openDirFlags, 0)
	if err != nil {
		return
	}
	defer d.Close()
	for ctx.Err() == nil {
		names, err := d.Readdirnames(readDirBatch)
		for _, name := range names {
			if isTempName(name) {
				if _, mine := liveTemps.Load(name); !mine {
					removeIfStale(dir, name)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func removeIfStale(dir *os.Root, name string) {
	before, err := dir.Lstat(name)
	if err != nil || !before.Mode().IsRegular() {
		return
	}
	f, err := dir.OpenFile(name, openReadFlags, 0)
	if err != nil {
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !os.SameFile(before, st) {
		return
	}
	if locked, _ := tryLock(f); !locked {
		return
	}
	if st.Size() == 0 && time.Since(st.ModTime()) < staleEmptyAge {
		return
	}
	// Holding the lock, remove the name only if it is still this file.
	if now, err := dir.Lstat(name); err == nil && os.SameFile(now, st) {
		dir.Remove(name)
	}
}
