package searchtest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
)

// modeTree holds files that each part of a search decides on: ignored,
// hidden and binary files, a match only past the first 64 KiB, long and
// CRLF lines, a multiline match, and enough files (in several
// directories) that a backend working in batches crosses a few.
func modeTree() tree {
	files := tree{
		".gitignore":     "*.log\n",
		"app.log":        "needle\n",
		".hidden/h.txt":  "needle\n",
		"bin.dat":        "needle\x00\n",
		"late.txt":       strings.Repeat("filler\n", 20000) + "needle late\n",
		"long.txt":       strings.Repeat("a", search.MaxLineBytes+10) + " needle\nneedle\n",
		"crlf.txt":       "needle\r\nno\r\nneedle\r\n",
		"multi.txt":      "foo\nneedle\nbar\nneedle\n",
		"none.txt":       "nothing here\n",
		"fold.txt":       "NEEDLE\nNeedle\nneedle\n",
		"sub/deep/x.go":  "package x // needle\n\nfunc needle() {}\n",
		"sub/deep/y.go":  "package y\n",
		"sub/z.txt":      "needle needle needle\n",
		"nonl.txt":       "a\nneedle",
		"ctx.txt":        "a\nb\nneedle\nc\nd\n",
		"ctxnomatch.txt": "a\nb\nc\n",
	}
	for i := range 40 {
		files[fmt.Sprintf("many/d%d/f%02d.txt", i%5, i)] = strings.Repeat("x\n", i) + strings.Repeat("needle\n", i%4)
	}
	return files
}

// modeRequests are requests of each kind whose results Mode must not
// change but for what it leaves out.
var modeRequests = []search.GrepRequest{
	{Pattern: "needle"},
	{Pattern: "needle", Before: 2, After: 1},
	{Pattern: "NEEDLE", IgnoreCase: true},
	{Pattern: `need\w+`},
	{Pattern: `^needle\r?$`},
	{Pattern: `needle$`},
	{Pattern: `foo\nneedle`, Multiline: true},
	{Pattern: `(?s)needle.*needle`, Multiline: true},
	{Pattern: "needle", Type: "go"},
	{Pattern: "needle", Glob: "*.txt", Path: "many"},
	{Pattern: "needle", Path: "late.txt"},
	{Pattern: "needle", Hidden: true, NoIgnore: true},
	{Pattern: "ZZZ_absent"},
}

// inMode returns what a search in mode must emit given the content
// results of the same request.
func inMode(content []search.FileResult, mode search.Mode) []search.FileResult {
	out := []search.FileResult{}
	for _, r := range content {
		switch mode {
		case search.ModeFiles:
			r = search.FileResult{Path: r.Path, Count: 1}
		case search.ModeCount:
			r = search.FileResult{Path: r.Path, Count: r.Count}
		}
		out = append(out, r)
	}
	return out
}

func modeName(m search.Mode) string {
	switch m {
	case search.ModeContent:
		return "ModeContent"
	case search.ModeFiles:
		return "ModeFiles"
	case search.ModeCount:
		return "ModeCount"
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// checkModes checks that ModeFiles emits the files a content search
// emits, each with Count 1 and no Lines, and ModeCount the same with
// the content search's Count.
func (s *grepTester) checkModes(t *testing.T) {
	g := s.newBackend(newTree(t, modeTree()))
	for _, req := range modeRequests {
		content := grepAll(t, g, req)
		if reflect.DeepEqual(req, search.GrepRequest{Pattern: "needle"}) && len(content) < 33 {
			t.Fatalf("%+v: %d files, want more than 32: the check says nothing", req, len(content))
		}
		for _, mode := range []search.Mode{search.ModeFiles, search.ModeCount} {
			r := req
			r.Mode = mode
			got := grepAll(t, g, r)
			if f, want := format(got), format(inMode(content, mode)); f != want {
				t.Errorf("%s, %+v:\n got %.600s\nwant %.600s", modeName(mode), req, f, want)
			}
		}
	}
}

// checkLimitHint checks that Limit does not change what is emitted: a
// caller that takes the first n files, and says so with Limit n, gets
// the first n of the full results, in each mode, and emit is not called
// after it returned false. A Limit above the number of results changes
// nothing.
func (s *grepTester) checkLimitHint(t *testing.T) {
	g := s.newBackend(newTree(t, modeTree()))
	for _, base := range []search.GrepRequest{
		{Pattern: "needle"},
		{Pattern: "needle", Before: 1, After: 1},
		{Pattern: `(?s)needle.*needle`, Multiline: true},
		{Pattern: "needle", Path: "many"},
	} {
		for _, mode := range []search.Mode{search.ModeContent, search.ModeFiles, search.ModeCount} {
			req := base
			req.Mode = mode
			full := grepAll(t, g, req)
			for _, n := range []int{1, 2, 3, 7, 16, 17, 33, len(full) - 1, len(full), len(full) + 1, 1000} {
				if n < 1 {
					continue
				}
				req.Limit = n
				var got []search.FileResult
				stopped := false
				err := g.Grep(context.Background(), req, func(r search.FileResult) bool {
					if stopped {
						t.Errorf("%s, %+v: emit called after it returned false (%s)", modeName(mode), req, r.Path)
					}
					got = append(got, r)
					stopped = len(got) == n
					return !stopped
				})
				if err != nil {
					t.Fatalf("%s, %+v: %v", modeName(mode), req, err)
				}
				want := full[:min(n, len(full))]
				if f, w := format(got), format(want); f != w {
					t.Errorf("%s, %+v, Limit %d:\n got %.600s\nwant %.600s", modeName(mode), base, n, f, w)
				}
			}
		}
	}
}
