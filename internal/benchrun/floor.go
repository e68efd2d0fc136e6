package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// The physical floor of a search that prints nothing: reading every file
// it would search once, to its end, and doing nothing else. It runs as
// its own process (the harness re-runs itself as `benchrun floor DIR`),
// so it pays a process start like the commands it is compared with. It
// reads the files a search sees by default: regular files, no hidden
// file or directory (a name starting with "."); .gitignore rules are not
// applied (GOROOT/src has none that match a file). A walker feeds one
// reader per CPU, as rg and the native backend use every core.

// floorMain is `benchrun floor DIR`.
func floorMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchrun floor DIR")
		return 2
	}
	files, bytes, err := readAll(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchrun floor: %v\n", err)
		return 1
	}
	fmt.Printf("%d files, %d bytes\n", files, bytes)
	return 0
}

// readAll reads every non-hidden regular file below root once and
// returns how many files and bytes it read.
func readAll(root string) (files, total int64, err error) {
	paths := make(chan string, 256)
	var wg sync.WaitGroup
	var nFiles, nBytes atomic.Int64
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for p := range paths {
				f, err := os.Open(p)
				if err != nil {
					continue // unreadable: a search skips it too
				}
				n := readToEnd(f, buf)
				f.Close()
				nFiles.Add(1)
				nBytes.Add(n)
			}
		})
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable directory: skipped, as a search does
		}
		if p != root && d.Name()[0] == '.' {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			paths <- p
		}
		return nil
	})
	close(paths)
	wg.Wait()
	return nFiles.Load(), nBytes.Load(), err
}

// readToEnd reads r into buf until it ends and returns how many bytes it
// read. (io.Copy to io.Discard would read in 8 KiB pieces, whatever buf.)
func readToEnd(r io.Reader, buf []byte) int64 {
	var total int64
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if err != nil {
			return total
		}
	}
}
