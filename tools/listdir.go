package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/bmatcuk/doublestar/v4"
)

// Bounds of list_dir.
const (
	maxListEntries = 1000
	maxListDepth   = 10
)

func init() { toolBuilders["list_dir"] = (*Extension).listDirTool }

type listArgs struct {
	Path   string   `json:"path"`
	Depth  *int     `json:"depth"`
	Ignore []string `json:"ignore"`
}

func (x *Extension) listDirTool() core.Tool {
	return tool("list_dir",
		"Lists a directory, one path per line in sorted order, directories ending in / and symbolic links in @. A name with a newline, a control character or bytes that are not UTF-8 is printed as a C-style quoted string, which every tool accepts back as a path. depth (default 1) descends into subdirectories; ignore skips names or paths matching glob patterns. At most 1000 entries.",
		`{"type":"object","properties":{`+
			`"path":{"type":"string","description":"directory relative to the working directory (default .), bare or quoted as the tools print it"},`+
			`"depth":{"type":"integer","minimum":1,"maximum":10,"description":"levels to list (default 1)"},`+
			`"ignore":{"type":"array","items":{"type":"string"},"description":"glob patterns of names or paths to skip, e.g. node_modules or **/*.log"}},`+
			`"additionalProperties":false}`,
		safe, true, x.listDir)
}

func (x *Extension) listDir(ctx context.Context, a listArgs) (any, error) {
	rel, err := x.resolve(a.Path)
	if err != nil {
		return nil, err
	}
	depth := 1
	if a.Depth != nil {
		depth = *a.Depth
	}
	if depth < 1 || depth > maxListDepth {
		return nil, fmt.Errorf("list_dir: depth %d is out of range; want 1 to %d", depth, maxListDepth)
	}
	for _, p := range a.Ignore {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("list_dir: ignore pattern %q is not a valid glob", p)
		}
	}
	st, err := x.files.Stat(ctx, rel)
	if err != nil {
		return nil, friendlyFSError(rel, err)
	}
	switch {
	case st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is a file, not a directory; use read_file to read it", quotePath(rel))
	case !st.IsDir():
		return nil, fmt.Errorf("%s is %s, not a directory", quotePath(rel), fileKind(st.Mode()))
	}
	var out []string
	listed := []any{}
	more := 0
	// walk lists dir (relative to the working directory) in byte-wise order
	// of the full path: a directory's entries come right after it.
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		entries, err := x.files.ReadDir(ctx, dir)
		if err != nil {
			return friendlyFSError(dir, err)
		}
		for _, e := range sortedForPaths(entries) {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := path.Join(dir, e.Name())
			shown := p
			if rel != "." {
				shown = strings.TrimPrefix(p, rel+"/")
			}
			if ignored(a.Ignore, e.Name(), shown) {
				continue
			}
			isDir := e.IsDir()
			if len(out) >= maxListEntries {
				more++
			} else {
				if isDir {
					out = append(out, quotePath(shown)+"/")
				} else {
					out = append(out, quotePath(shown)+suffix(e))
				}
				listed = append(listed, map[string]any{"path": quotePath(shown), "type": entryType(e.Type())})
			}
			if isDir && level < depth && e.Name() != ".git" {
				if err := walk(p, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(rel, 1); err != nil {
		return nil, err
	}
	data := map[string]any{"entries": listed, "truncated": more > 0, "omitted": int64(more)}
	if len(out) == 0 {
		return core.DataOutput{Text: fmt.Sprintf("[%s is empty]", quotePath(rel)), Data: data}, nil
	}
	s := strings.Join(out, "\n") + "\n"
	if more > 0 {
		s += fmt.Sprintf("[listing stopped at %d entries; %d more not shown. List a subdirectory, lower depth or add ignore patterns]\n", maxListEntries, more)
	}
	return core.DataOutput{Text: s, Data: data}, nil
}

// entryType names an entry's type in list_dir's data.
func entryType(t fs.FileMode) string {
	switch {
	case t&fs.ModeDir != 0:
		return "dir"
	case t&fs.ModeSymlink != 0:
		return "symlink"
	case t.IsRegular():
		return "file"
	}
	return "other"
}

// sortedForPaths orders entries so that full paths come out byte-wise
// sorted: a directory "x" sorts as "x/" among its siblings.
func sortedForPaths(entries []fs.DirEntry) []fs.DirEntry {
	key := func(e fs.DirEntry) string {
		if e.IsDir() {
			return e.Name() + "/"
		}
		return e.Name()
	}
	out := append([]fs.DirEntry(nil), entries...)
	sortBy(out, key)
	return out
}

// suffix marks symbolic links, which list_dir does not follow.
func suffix(e fs.DirEntry) string {
	if e.Type()&fs.ModeSymlink != 0 {
		return "@"
	}
	return ""
}

func ignored(patterns []string, name, p string) bool {
	for _, pat := range patterns {
		if ok, _ := doublestar.Match(pat, name); ok {
			return true
		}
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
	}
	return false
}
