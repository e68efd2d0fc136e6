package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
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
	clean := removeStaleTemps(ctx, dir)
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
	if clean {
		markSwept(dir)
	}
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

// swept holds, by directory (fileID), the modification time a directory
// had after this process last swept it, found no temporary file left, and
// then wrote in it. While the time is unchanged nobody has made an entry
// there since, so there is nothing to sweep: a write in a directory of 10,000 files does not
// read all their names every time. (On a file system whose times have
// coarse steps, an entry made within the same step is swept by a later
// change.)
var swept sync.Map

// markSwept records dir's modification time after a sweep and a write.
func markSwept(dir *os.Root) {
	if st, err := dir.Stat("."); err == nil {
		if id, ok := fileID(st); ok {
			swept.Store(id, st.ModTime())
		}
	}
}

// removeStaleTemps removes the stale temporary files in dir (see the top
// of this file), unless nothing has changed there since this process last
// swept it clean. It reports whether no other writer's temporary file is
// left (a live writer's may die later, so its directory is swept again).
// It is best effort: what it cannot read or lock stays.
func removeStaleTemps(ctx context.Context, dir *os.Root) (clean bool) {
	d, err := dir.OpenFile(".", openDirFlags, 0)
	if err != nil {
		return false
	}
	defer d.Close()
	if st, err := d.Stat(); err == nil {
		if id, ok := fileID(st); ok {
			if t, ok := swept.Load(id); ok && t.(time.Time).Equal(st.ModTime()) {
				return true
			}
			swept.Delete(id)
		}
	}
	clean = true
	for {
		if ctx.Err() != nil {
			return false
		}
		names, err := d.Readdirnames(readDirBatch)
		for _, name := range names {
			if isTempName(name) {
				if _, mine := liveTemps.Load(name); !mine && !removeIfStale(dir, name) {
					clean = false
				}
			}
		}
		if err == io.EOF {
			return clean
		}
		if err != nil {
			return false
		}
	}
}

// removeIfStale removes the temporary file name if it is stale, and
// reports whether it did.
func removeIfStale(dir *os.Root, name string) bool {
	before, err := dir.Lstat(name)
	if err != nil || !before.Mode().IsRegular() {
		return false
	}
	f, err := dir.OpenFile(name, openReadFlags, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !os.SameFile(before, st) {
		return false
	}
	if locked, _ := tryLock(f); !locked {
		return false
	}
	if st.Size() == 0 && time.Since(st.ModTime()) < staleEmptyAge {
		return false
	}
	// Holding the lock, remove the name only if it is still this file.
	if now, err := dir.Lstat(name); err == nil && os.SameFile(now, st) {
		return dir.Remove(name) == nil
	}
	return false
}
