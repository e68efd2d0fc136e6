package search

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes is the table behind GrepRequest.Type: each type is a list of
// base-name globs. Every backend uses it (the ripgrep backend passes it to
// rg with --type-add, so rg's own type table never applies).
var fileTypes = map[string][]string{
	"asm":    {"*.asm", "*.s", "*.S"},
	"c":      {"*.c", "*.h"},
	"cpp":    {"*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.H", "*.hh", "*.hpp", "*.hxx", "*.h++", "*.h", "*.inl"},
	"cs":     {"*.cs"},
	"css":    {"*.css", "*.less", "*.sass", "*.scss"},
	"docker": {"Dockerfile", "Dockerfile.*", "*.dockerfile"},
	"go":     {"*.go"},
	"html":   {"*.htm", "*.html"},
	"java":   {"*.java"},
	"js":     {"*.cjs", "*.js", "*.jsx", "*.mjs"},
	"json":   {"*.json"},
	"kotlin": {"*.kt", "*.kts"},
	"lua":    {"*.lua"},
	"make":   {"GNUmakefile", "Makefile", "makefile", "*.mak", "*.mk"},
	"md":     {"*.markdown", "*.md"},
	"php":    {"*.php"},
	"proto":  {"*.proto"},
	"py":     {"*.py", "*.pyi"},
	"rb":     {"Gemfile", "Rakefile", "*.gemspec", "*.rb"},
	"rust":   {"*.rs"},
	"sh":     {"*.bash", "*.sh", "*.zsh"},
	"sql":    {"*.sql"},
	"star":   {"BUILD", "BUILD.bazel", "WORKSPACE", "*.bzl", "*.star"},
	"swift":  {"*.swift"},
	"toml":   {"*.toml"},
	"ts":     {"*.cts", "*.mts", "*.ts", "*.tsx"},
	"txt":    {"*.txt"},
	"xml":    {"*.xml"},
	"yaml":   {"*.yaml", "*.yml"},
}

// Types returns the file types GrepRequest.Type accepts: each name with
// the base-name globs (doublestar syntax) that select its files. The map
// is a copy; changing it changes nothing.
func Types() map[string][]string {
	m := make(map[string][]string, len(fileTypes))
	for k, v := range fileTypes {
		m[k] = slices.Clone(v)
	}
	return m
}

// typeFilter keeps the files of one type.
type typeFilter struct {
	names    map[string]bool // exact base names
	suffixes []string        // "*.ext" globs
	globs    []string        // anything else, matched with doublestar
}

func newTypeFilter(name string) (*typeFilter, error) {
	globs, ok := fileTypes[name]
	if !ok {
		known := make([]string, 0, len(fileTypes))
		for k := range fileTypes {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("search: unknown file type %q; known types: %s", name, strings.Join(known, ", "))
	}
	f := &typeFilter{names: map[string]bool{}}
	for _, g := range globs {
		switch {
		case !strings.ContainsAny(g, `*?[{\`):
			f.names[g] = true
		case strings.HasPrefix(g, "*") && !strings.ContainsAny(g[1:], `*?[{\/`):
			f.suffixes = append(f.suffixes, g[1:])
		default:
			f.globs = append(f.globs, g)
		}
	}
	return f, nil
}

func (f *typeFilter) keep(name string) bool {
	if f.names[name] {
		return true
	}
	for _, s := range f.suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	for _, g := range f.globs {
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}

// globFilter is GrepRequest.Glob, with rg -g semantics:
//   - a pattern without '/' matches the base name of a file at any depth;
//     one with a '/' (a leading '/' is dropped) matches the path relative
//     to the search root, like a .gitignore pattern;
//   - a trailing '/' makes it match directories only;
//   - a leading '!' excludes the files it matches, and every file below a
//     directory it matches, instead of keeping only the files it matches.
type globFilter struct {
	pattern string
	negate  bool
	base    bool
	dirOnly bool
}

func newGlobFilter(g string) (*globFilter, error) {
	f := &globFilter{}
	s := g
	if strings.HasPrefix(s, "!") {
		f.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		f.dirOnly = true
		s = strings.TrimSuffix(s, "/")
	}
	f.base = !strings.Contains(s, "/")
	s = strings.TrimPrefix(s, "/")
	if s == "" || !doublestar.ValidatePattern(s) {
		return nil, fmt.Errorf("search: invalid glob %q", g)
	}
	if err := checkBraces("glob", g, s); err != nil {
		return nil, err
	}
	f.pattern = s
	return f, nil
}

func (f *globFilter) matches(rel string, isDir bool) bool {
	if f.dirOnly && !isDir {
		return false
	}
	if f.base {
		rel = path.Base(rel)
	}
	return doublestar.MatchUnvalidated(f.pattern, rel)
}

func (f *globFilter) keep(rel string) bool {
	if !f.negate {
		return f.matches(rel, false)
	}
	if f.matches(rel, false) {
		return false
	}
	for i := strings.IndexByte(rel, '/'); i >= 0; {
		if f.matches(rel[:i], true) {
			return false
		}
		j := strings.IndexByte(rel[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// fileFilter is the Type, Glob and Exclude filters of a grep request.
type fileFilter struct {
	typ      *typeFilter
	glob     *globFilter
	excludes []*globFilter
}

func newFileFilter(typ, glob string, excludes []string) (fileFilter, error) {
	var f fileFilter
	var err error
	for _, x := range excludes {
		g, err := newGlobFilter("!" + strings.TrimPrefix(x, "!"))
		if err != nil {
			return f, fmt.Errorf("search: invalid exclude pattern %q", x)
		}
		f.excludes = append(f.excludes, g)
	}
	if typ != "" {
		if f.typ, err = newTypeFilter(typ); err != nil {
			return f, err
		}
	}
	if glob != "" {
		if f.glob, err = newGlobFilter(glob); err != nil {
			return f, err
		}
	}
	return f, nil
}

func (f fileFilter) keep(name, rel string) bool {
	if f.typ != nil && !f.typ.keep(name) {
		return false
	}
	for _, x := range f.excludes {
		if !x.keep(rel) {
			return false
		}
	}
	return f.glob == nil || f.glob.keep(rel)
}

// namePattern is GlobRequest.Pattern: a doublestar pattern matched
// against the path relative to the request's Path.
type namePattern struct {
	pattern string
	dirs    []string // leading components usable to prune directories
	deep    bool     // a "**" component: no depth limit
}

func newNamePattern(p string) (*namePattern, error) {
	s := strings.TrimPrefix(p, "./")
	switch {
	case s == "":
		return nil, fmt.Errorf("search: empty glob pattern")
	case strings.HasPrefix(s, "/"):
		return nil, fmt.Errorf("search: glob pattern %q is absolute; want a pattern relative to the search path", p)
	case !doublestar.ValidatePattern(s):
		return nil, fmt.Errorf("search: invalid glob pattern %q", p)
	}
	if err := checkBraces("glob pattern", p, s); err != nil {
		return nil, err
	}
	np := &namePattern{pattern: s}
	comps := strings.Split(s, "/")
	for i, c := range comps[:len(comps)-1] {
		if strings.Contains(c, "**") || strings.ContainsAny(c, `{\`) {
			// Past "**" anything goes; braces may hold a '/', and
			// escapes are left to the full match.
			np.deep = true
			break
		}
		np.dirs = append(np.dirs, comps[i])
	}
	if !np.deep && strings.Contains(comps[len(comps)-1], "**") {
		np.deep = true
	}
	if !np.deep && strings.ContainsAny(comps[len(comps)-1], `{\`) {
		np.deep = true
	}
	return np, nil
}

func (p *namePattern) match(rel string) bool {
	return doublestar.MatchUnvalidated(p.pattern, rel)
}

// skipDir reports whether no match can lie below the directory rel
// (relative to the request's Path).
func (p *namePattern) skipDir(rel string) bool {
	depth := 0
	for comp := range strings.SplitSeq(rel, "/") {
		if depth >= len(p.dirs) {
			return !p.deep
		}
		if !doublestar.MatchUnvalidated(p.dirs[depth], comp) {
			return true
		}
		depth++
	}
	return false
}
