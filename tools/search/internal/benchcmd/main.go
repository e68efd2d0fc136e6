//go:build unix

// Command benchcmd runs one search with one of the search backends and
// prints the result the way rg -n and fd print theirs, for comparing a
// backend alone with rg and fd by hand (scripts/bench/all.sh measures
// them through agentsh call).
//
//	benchcmd [-backend NAME] [-root DIR] [-limit N] [-stats] grep [-i] [-U] [-A N] [-B N] [-type T] [-glob G] [-path P] [-hidden] [-no-ignore] PATTERN
//	benchcmd [-backend NAME] [-root DIR] [-limit N] [-stats] glob [-path P] [-hidden] [-no-ignore] PATTERN
//
// NAME is a registered backend (search.GrepBackends, search.GlobBackends):
// native, ripgrep, or fd for glob.
//
// grep prints "path:line:text" for a matching line and "path-line-text"
// for a context line; glob prints one path a line. -limit stops after N
// lines (grep) or paths (glob); -stats prints the number of files the
// native backend opened and the peak RSS on stderr.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

func main() {
	backend := flag.String("backend", "native", "a registered backend: "+strings.Join(search.GlobBackends(), ", ")+" (grep: "+strings.Join(search.GrepBackends(), ", ")+")")
	root := flag.String("root", ".", "search root")
	limit := flag.Int("limit", 0, "stop after this many lines or paths (0: no limit)")
	showStats := flag.Bool("stats", false, "print files opened and peak RSS on stderr")
	flag.Parse()
	if flag.NArg() < 1 {
		usage()
	}
	out := bufio.NewWriterSize(os.Stdout, 256<<10)
	var err error
	switch cmd, args := flag.Arg(0), flag.Args()[1:]; cmd {
	case "grep":
		err = grep(*backend, *root, *limit, args, out)
	case "glob":
		err = glob(*backend, *root, *limit, args, out)
	default:
		usage()
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if *showStats {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Fprintf(os.Stderr, "files_opened=%d maxrss_kb=%d\n", stats.FilesOpened.Load(), ru.Maxrss)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmd:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: benchcmd [flags] grep|glob [flags] PATTERN")
	os.Exit(2)
}

func grep(backend, root string, limit int, args []string, out *bufio.Writer) error {
	fs := flag.NewFlagSet("grep", flag.ExitOnError)
	var req search.GrepRequest
	fs.BoolVar(&req.IgnoreCase, "i", false, "ignore case")
	fs.BoolVar(&req.Multiline, "U", false, "multiline")
	fs.IntVar(&req.After, "A", 0, "lines after")
	fs.IntVar(&req.Before, "B", 0, "lines before")
	fs.StringVar(&req.Type, "type", "", "file type")
	fs.StringVar(&req.Glob, "glob", "", "glob filter")
	fs.StringVar(&req.Path, "path", "", "path below the root")
	fs.BoolVar(&req.Hidden, "hidden", false, "search hidden files")
	fs.BoolVar(&req.NoIgnore, "no-ignore", false, "ignore .gitignore files")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	req.Pattern = fs.Arg(0)
	g, err := search.OpenGrep(backend, root)
	if err != nil {
		return err
	}
	n := 0
	return g.Grep(context.Background(), req, func(r search.FileResult) bool {
		for _, l := range r.Lines {
			sep := byte('-')
			if l.Match {
				sep = ':'
			}
			out.WriteString(r.Path)
			out.WriteByte(sep)
			out.WriteString(strconv.Itoa(l.Number))
			out.WriteByte(sep)
			out.WriteString(l.Text)
			out.WriteByte('\n')
			if n++; limit > 0 && n >= limit {
				return false
			}
		}
		return true
	})
}

func glob(backend, root string, limit int, args []string, out *bufio.Writer) error {
	fs := flag.NewFlagSet("glob", flag.ExitOnError)
	var req search.GlobRequest
	fs.StringVar(&req.Path, "path", "", "path below the root")
	fs.BoolVar(&req.Hidden, "hidden", false, "list hidden files")
	fs.BoolVar(&req.NoIgnore, "no-ignore", false, "ignore .gitignore files")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	req.Pattern = fs.Arg(0)
	g, err := search.OpenGlob(backend, root)
	if err != nil {
		return err
	}
	n := 0
	return g.Glob(context.Background(), req, func(p string) bool {
		out.WriteString(p)
		out.WriteByte('\n')
		n++
		return limit <= 0 || n < limit
	})
}
