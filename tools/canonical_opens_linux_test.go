package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/workpath"
	"golang.org/x/sys/unix"
)

// What the hook saw is what was opened. The executor makes a call's path
// canonical with workpath (links resolved as the kernel would) before any
// hook runs; the tool then opens that canonical path through its own
// resolver (LocalFiles' walk). FuzzCanonicalOpens spells paths every way
// a call may (names of a tree of files, directories and links of every
// shape, ".", "..", empty components, the quoted form with octal and hex
// escapes, absolute prefixes, trailing and repeated slashes) and checks,
// for each call of read_file, write_file, edit_file and list_dir:
//
//   - a call that succeeds read, wrote, edited or listed exactly what is
//     at the canonical path the hook saw, and nothing else changed;
//   - the tool's own resolution of the spelling as sent reaches the same
//     file as the canonical path (the two resolvers agree), the canonical
//     path is a fixed point of it, and a canonical refusal is one the
//     tool would have made too;
//   - nothing outside the working directory is read or written.
//
// Each input costs a millisecond or so, and a write's fsync more on a
// disk: fuzz on a tmpfs, with a short minimization, as in
//
//	TMPDIR=/dev/shm go test ./tools -run '^$' -fuzz FuzzCanonicalOpens -fuzzminimizetime 3s
func FuzzCanonicalOpens(f *testing.F) {
	o := newOpensTree(f)
	for _, s := range hostileSpellings {
		for op := range uint8(len(opensTools)) {
			f.Add(s.raw, s.recipe, op)
		}
	}
	for _, name := range o.names {
		f.Add(name, []byte(nil), uint8(0)) // read_file
		f.Add(name, []byte(nil), uint8(1)) // write_file
	}
	f.Add("", []byte{0x01, 3, 4, 1, 2}, uint8(3))
	f.Fuzz(func(t *testing.T, raw string, recipe []byte, op uint8) {
		p := o.spell(raw, recipe)
		// The checks see the tree by full names, which costs the square
		// of its depth; the tools at any depth are TestWriteAndReadDeeperThanPathMax's.
		if d, err := workpath.Decode(p); err == nil && strings.Count(d, "/") > maxComponents {
			t.Skipf("a path of more than %d components", maxComponents)
		}
		o.check(t, p, opensTools[int(op)%len(opensTools)])
	})
}

// hostileSpellings are the spellings a policy must see through: quoted
// forms with escapes, "..", and absolute paths (recipe 0x01 puts the
// working directory, as given, in front).
var hostileSpellings = []struct {
	raw    string
	recipe []byte
}{
	{`".env"`, nil},
	{`"\x2eenv"`, nil},
	{`".ssh/id_ed25519"`, nil},
	{`"certs/server.pe\155"`, nil},
	{`src/../README.md`, nil},
	{`.env`, []byte{0x01}},
	{`src/../README.md`, []byte{0x01}},
	{`.ssh/id_ed25519`, []byte{0x05}},  // absolute, then quoted
	{`certs/server.pem`, []byte{0x09}}, // absolute, every byte octal
	{`.env`, []byte{0x8d}},             // absolute, some bytes hex
	{`.env`, []byte{0x02}},             // through the real path: outside lexically
	{`../outside/secret`, nil},
	{`"..\57outside/secret"`, nil},
	{`/etc/passwd`, nil},
}

var opensTools = []string{"read_file", "write_file", "edit_file", "list_dir"}

// maxComponents bounds the paths checked (the deep part of the tree is
// 18 names down).
const maxComponents = 256

// opensTree is a working directory reached through a link (alias → real),
// another name for it (other), and a directory outside it. Every regular
// file inside holds its own canonical path (contentFor).
type opensTree struct {
	base, real, alias, other, outside string

	names []string // the names below real that seed the corpus
	vocab []string // components the fuzzer composes paths from

	// Handles on base and real: what the test looks at may lie deeper
	// than PATH_MAX, as the tools can reach it.
	baseRoot, realRoot *os.Root

	e   *env
	ext *tools.Extension

	pristine map[string]entry  // the tree as made, which every check restores
	contents map[string]string // its files' contents, by name below base

	mu  sync.Mutex
	saw *core.Call // the call the hook saw, nil if no hook ran
}

func contentFor(canonical string) string { return "at " + workpath.Quote(canonical) + "\n" }

// The tree's deep part: deepLevels directories named longName, deeper
// than PATH_MAX.
const deepLevels = 17

var longName = strings.Repeat("L", 250)

const outsideMark = "OUTSIDE"

func newOpensTree(tb testing.TB) *opensTree {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	o := &opensTree{base: base, real: filepath.Join(base, "real"), alias: filepath.Join(base, "alias"),
		other: filepath.Join(base, "other"), outside: filepath.Join(base, "outside")}
	files := []string{"top.txt", ".env", ".ssh/id_ed25519", "certs/server.pem", "README.md", "src/main.go",
		"sub/g", "sub/deep/f", "nl\nname", "sp ace", `"q`, "bad\xffname", `back\slash`}
	for _, name := range files {
		writeTree(tb, o.real, map[string]string{name: contentFor(name)})
	}
	writeTree(tb, o.outside, map[string]string{"secret": outsideMark + " secret\n", "dir/secret": outsideMark + " dir/secret\n"})
	must(tb, os.Mkdir(filepath.Join(o.real, "emptydir"), 0o755))
	must(tb, unix.Mkfifo(filepath.Join(o.real, "fifo"), 0o644))
	must(tb, os.Symlink("real", o.alias))
	must(tb, os.Symlink("real", o.other))
	links := map[string]string{
		"l_top":          "top.txt",
		"l_env":          ".env",
		"l_ssh":          ".ssh",
		"l_dir":          "sub/deep",
		"l_lex":          "l_dir/../g", // sub/g: ".." after a link is the target's parent
		"l_climb":        "l_dir/../../top.txt",
		"sub/l_parent":   "..",
		"sub/l_sib":      "deep/f",
		"sub/deep/l_top": "../../top.txt",
		"chain1":         "chain2",
		"chain2":         "sub/chain3",
		"sub/chain3":     "../l_lex",
		"l_abs":          o.alias + "/sub/g",
		"l_abs_real":     o.real + "/sub/g",
		"l_abs_other":    o.other + "/sub/g", // inside, but through a name that is not the working directory's
		"l_abs_dir":      o.alias + "/sub",
		"l_abs_root":     o.alias,
		"l_abs_dotdot":   o.alias + "/l_dir/../g",
		"l_abs_reenter":  o.alias + "/../alias/top.txt",
		"l_abs_slashes":  o.alias + "//sub/./g/",
		"l_out":          "../outside/secret",
		"l_out_dir":      "../outside/dir",
		"l_out_lexin":    "l_out_dir/../secret", // lexically inside, really outside
		"l_out_abs":      o.outside + "/secret",
		"l_out_up":       "l_dir/../../../outside/secret",
		"l_dangling":     "sub/created",
		"l_dangle_dir":   "newdir/deeper/file",
		"l_dangle_up":    "nothere/../x",
		"l_dangle_out":   "../outside/newfile",
		"loop1":          "loop2",
		"loop2":          "sub/../loop1",
		"self":           "self",
		"l_fifo":         "fifo",
		"l_file_up":      "top.txt/../sub/g", // a file is not a directory, even on the way up
		"l_file_in":      "top.txt/x",
		"l_file_slash":   "top.txt/",
		"l_file_dot":     "top.txt/.",
		"l_nl":           "nl\nname",
		"l_bad":          "bad\xffname",
		"l_empty_up":     "emptydir/../sub",
	}
	// A chain of 41 links: h00 is one hop too many, h01 is not.
	for i := range 41 {
		links[fmt.Sprintf("h%02d", i)] = fmt.Sprintf("h%02d", i+1)
	}
	links["h41"] = "top.txt"
	for name, target := range links {
		must(tb, os.Symlink(target, filepath.Join(o.real, filepath.FromSlash(name))))
	}
	o.baseRoot, err = os.OpenRoot(base)
	must(tb, err)
	tb.Cleanup(func() { o.baseRoot.Close() })
	o.realRoot, err = o.baseRoot.OpenRoot("real")
	must(tb, err)
	tb.Cleanup(func() { o.realRoot.Close() })
	// Links deeper than PATH_MAX (17 levels of 250 bytes): one back to
	// .env, one out.
	deep := slices.Repeat([]string{longName}, deepLevels)
	for i := range deep {
		must(tb, o.realRoot.Mkdir(strings.Join(deep[:i+1], "/"), 0o755))
	}
	deepLinks := map[string]string{
		"env": strings.Repeat("../", deepLevels) + ".env",
		"out": strings.Repeat("../", deepLevels+1) + "outside/secret",
	}
	for name, target := range deepLinks {
		must(tb, o.realRoot.Symlink(target, strings.Join(deep, "/")+"/"+name))
		links[strings.Join(deep, "/")+"/"+name] = target
	}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			o.vocab = append(o.vocab, s)
		}
	}
	for _, s := range []string{".", "..", "", "missing", "real", "alias", "outside", "emptydir", "fifo", longName} {
		add(s)
	}
	// In a fixed order: a recipe picks components by their index.
	for _, name := range append(files, slices.Sorted(maps.Keys(links))...) {
		if strings.HasPrefix(name, "h") && !slices.Contains([]string{"h00", "h01", "h41"}, name) {
			continue // the chain's middle adds nothing its ends do not
		}
		o.names = append(o.names, name)
		for _, c := range strings.Split(name, "/") {
			add(c)
		}
	}
	sort.Strings(o.names)

	o.e = newEnv(tb, tools.ExtensionConfig{WorkingDir: o.alias})
	o.ext = o.e.ext
	must(tb, o.e.exec.AddBefore(core.BeforeHook{Name: "record", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		cp := *c
		o.saw = &cp
		return nil, nil
	}}))
	o.pristine = o.snapshot(tb)
	o.contents = map[string]string{}
	for k, e := range o.pristine {
		if e.mode.IsRegular() {
			b, err := o.baseRoot.ReadFile(k)
			must(tb, err)
			o.contents[k] = string(b)
		}
	}
	return o
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// spell composes a path: raw as it is when recipe is empty; else
// recipe[0] says how (bits 0-1: in front, nothing, the working
// directory as given, its real path or another name of it; bits 2-3:
// bare, quoted, every byte octal, every byte hex, with bit 7 every other
// byte only; bit 4 doubles the slashes, bit 5 adds a trailing one, bit 6
// a leading "./") and every further byte picks a component.
func (o *opensTree) spell(raw string, recipe []byte) string {
	if len(recipe) == 0 {
		return raw
	}
	how := recipe[0]
	var parts []string
	if raw != "" {
		parts = append(parts, raw)
	}
	for _, b := range recipe[1:] {
		parts = append(parts, o.vocab[int(b)%len(o.vocab)])
	}
	sep := "/"
	if how&0x10 != 0 {
		sep = "//"
	}
	p := strings.Join(parts, sep)
	if how&0x20 != 0 {
		p += "/"
	}
	if how&0x40 != 0 {
		p = "./" + p
	}
	switch how & 3 {
	case 1:
		p = o.alias + sep + p
	case 2:
		p = o.real + sep + p
	case 3:
		p = o.other + sep + p
	}
	some := func(i int) bool { return how&0x80 == 0 || i%2 == 0 }
	switch how >> 2 & 3 {
	case 1:
		p = workpath.QuoteAlways(p)
	case 2:
		p = escapeEvery(p, `\%03o`, some)
	case 3:
		p = escapeEvery(p, `\x%02x`, some)
	}
	return p
}

// escapeEvery writes p in the quoted form with the bytes esc picks (and
// those that must be: " and \) escaped in format.
func escapeEvery(p, format string, esc func(int) bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		if c := p[i]; esc(i) || c == '"' || c == '\\' {
			fmt.Fprintf(&b, format, c)
		} else {
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// entry is what a snapshot keeps of a name below base: enough to see
// any change (a write, a rename over it, a new link or directory)
// without reading anything.
type entry struct {
	mode         fs.FileMode
	ino          uint64
	size         int64
	mtime, ctime unix.Timespec
}

// snapshot lists everything below base without following links or
// opening anything but directories (the pipe stays shut), relative to
// each directory's descriptor, so a tree of any depth is seen.
func (o *opensTree) snapshot(tb testing.TB) map[string]entry {
	tb.Helper()
	out := map[string]entry{}
	var walk func(fd int, prefix string)
	walk = func(fd int, prefix string) {
		dir := os.NewFile(uintptr(fd), prefix)
		defer dir.Close()
		names, err := dir.Readdirnames(-1)
		must(tb, err)
		for _, n := range names {
			var st unix.Stat_t
			must(tb, unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW))
			e := entry{mode: fileMode(st.Mode), ino: st.Ino}
			if !e.mode.IsDir() { // a directory's times change with what it holds
				e.size, e.mtime, e.ctime = st.Size, st.Mtim, st.Ctim
			}
			out[prefix+n] = e
			if e.mode.IsDir() {
				sub, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				must(tb, err)
				walk(sub, prefix+n+"/")
			}
		}
	}
	fd, err := unix.Open(o.base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(tb, err)
	walk(fd, "")
	return out
}

// fileMode is the fs.FileMode of a stat's mode, for the types the tree
// holds.
func fileMode(m uint32) fs.FileMode {
	perm := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir | perm
	case unix.S_IFLNK:
		return fs.ModeSymlink | perm
	case unix.S_IFIFO:
		return fs.ModeNamedPipe | perm
	case unix.S_IFREG:
		return perm
	}
	return fs.ModeIrregular | perm
}

// changes lists the names added, removed or changed between two
// snapshots, sorted.
func changes(before, after map[string]entry) []string {
	var out []string
	for k, a := range after {
		if b, ok := before[k]; !ok || a != b {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// restore puts the tree back as made, given the changes since: what was
// added goes (deepest first), a file that changed gets its content back.
// Anything else (a link or directory changed, a name gone) cannot be put
// back and fails the test.
func (o *opensTree) restore(tb testing.TB, diff []string) {
	tb.Helper()
	for i := len(diff) - 1; i >= 0; i-- {
		k := diff[i]
		b, had := o.pristine[k]
		content, isFile := o.contents[k]
		switch {
		case !had:
			must(tb, o.baseRoot.Remove(k))
		case isFile:
			must(tb, o.baseRoot.WriteFile(k, []byte(content), b.mode.Perm()))
			must(tb, o.baseRoot.Chmod(k, b.mode.Perm()))
		default:
			tb.Fatalf("%s (%v) changed and cannot be put back", k, b.mode)
		}
	}
	now := o.snapshot(tb)
	for k, b := range o.pristine {
		a, ok := now[k]
		if !ok || a.mode != b.mode || !b.mode.IsRegular() && a != b {
			tb.Fatalf("the tree was not restored: %s is %+v, was %+v", k, a, b)
		}
	}
	if len(now) != len(o.pristine) {
		tb.Fatalf("the tree was not restored: %d names, was %d", len(now), len(o.pristine))
	}
	o.pristine = now // the files rewritten have new times
}

// call runs tool on the spelling p through the executor and returns the
// path as sent (what survives JSON), the result and the call the hook saw
// (nil if none ran).
func (o *opensTree) call(tb testing.TB, tool, p string) (string, *core.Result, *core.Call) {
	tb.Helper()
	args := map[string]any{"path": p}
	switch tool {
	case "write_file":
		args["content"] = "written\n"
	case "edit_file":
		args["old_string"], args["new_string"] = "at ", "edited at "
	}
	raw, err := json.Marshal(args)
	must(tb, err)
	var sent struct{ Path string }
	must(tb, json.Unmarshal(raw, &sent))
	o.mu.Lock()
	o.saw = nil
	o.mu.Unlock()
	done := make(chan *core.Result, 1)
	go func() {
		res, _ := o.e.exec.InvokeTool(context.Background(), tool, raw)
		done <- res
	}()
	var res *core.Result
	select {
	case res = <-done:
	case <-time.After(promptly):
		tb.Fatalf("%s %q did not return within %v: it blocks", tool, p, promptly)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return sent.Path, res, o.saw
}

func (o *opensTree) check(t *testing.T, p, tool string) {
	// The tree is put back however the check ends, so that the next
	// input starts from the tree as made.
	var after map[string]entry
	var diff []string
	defer func() {
		if after == nil {
			diff = changes(o.pristine, o.snapshot(t))
		}
		if len(diff) > 0 {
			o.restore(t, diff)
		}
	}()
	sent, res, saw := o.call(t, tool, p)
	after = o.snapshot(t)
	diff = changes(o.pristine, after)
	out := res.ForLLM
	if res.Err != nil {
		out += "\n" + res.Err.Error()
	}
	if strings.Contains(out, outsideMark) {
		t.Fatalf("%s %q read outside the working directory: %q", tool, p, out)
	}
	create := tool == "write_file"
	own, ownInfo, ownErr := tools.OpenedPath(o.ext, sent, create)

	if saw == nil {
		// Refused before any hook ran: the canonical step, which must
		// only refuse what the tool would have refused itself.
		var ce *core.Error
		if !errors.As(res.Err, &ce) || ce.Kind != core.KindInvalidArguments || ce.Hook != "canonical" {
			t.Fatalf("%s %q: no hook ran, yet the call was not refused by the canonical step: %v", tool, p, res.Err)
		}
		if ownErr == nil {
			t.Fatalf("%s %q: the canonical step refused it (%v), but the tool itself would open %q", tool, p, res.Err, own)
		}
		if len(diff) > 0 {
			t.Fatalf("%s %q was refused, yet changed %q", tool, p, diff)
		}
		return
	}

	// What the hook saw: the canonical path, in Args and in Effects.
	var args struct{ Path string }
	if err := json.Unmarshal(saw.Args, &args); err != nil {
		t.Fatalf("%s %q: the hook saw arguments %s: %v", tool, p, saw.Args, err)
	}
	canon, err := workpath.Decode(args.Path)
	if err != nil {
		t.Fatalf("%s %q: the hook saw path %q, which does not decode: %v", tool, p, args.Path, err)
	}
	effects := saw.Effects.Reads
	if tool == "write_file" || tool == "edit_file" {
		effects = saw.Effects.Writes
	}
	if !slices.Equal(effects, []string{canon}) {
		t.Fatalf("%s %q: the hook saw path %q but effects %q", tool, p, canon, effects)
	}

	// The two resolvers agree: the spelling as sent reaches, by the
	// tool's own resolution, what the canonical path names, and the
	// canonical path reaches itself.
	viaCanon, _, canonErr := tools.OpenedPath(o.ext, args.Path, create)
	switch {
	case canonErr == nil && viaCanon != canon:
		t.Fatalf("%s %q: the hook saw %q, but the tool given it opens %q", tool, p, canon, viaCanon)
	case ownErr == nil && canonErr == nil && own != canon:
		t.Fatalf("%s %q: the hook saw %q, but the tool given the spelling itself opens %q", tool, p, canon, own)
	case ownErr == nil && canonErr != nil:
		t.Fatalf("%s %q: the tool given the spelling opens %q, but given the canonical %q fails: %v", tool, p, own, canon, canonErr)
	case ownErr != nil && canonErr == nil:
		t.Fatalf("%s %q: the tool given the spelling fails (%v), but the canonical %q opens", tool, p, ownErr, canon)
	}

	// The call did what the canonical path says, to that file only.
	fi, statErr := o.realRoot.Lstat(canon)
	// What the tool's walk reaches it can open, unless a name is longer
	// than the system takes (NAME_MAX), which only making it tells.
	tooLong := slices.ContainsFunc(strings.Split(own, "/"), func(c string) bool { return len(c) > 255 })
	canOpen := ownErr == nil && !tooLong && (ownInfo == nil && create || ownInfo != nil && ownInfo.Mode().IsRegular())
	switch tool {
	case "read_file", "edit_file":
		if !res.OK() {
			if canOpen {
				t.Fatalf("%s %q: the tool given the spelling opens %q, a file, yet the call failed: %v", tool, p, own, res.Err)
			}
			break
		}
		if statErr != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s %q succeeded, but the canonical path %q is not a file (%v, %v)", tool, p, canon, fi, statErr)
		}
		if tool == "read_file" {
			if want := "     1\t" + strings.TrimSuffix(contentFor(canon), "\n") + "\n"; out != want {
				t.Fatalf("read_file %q: the hook saw %q, the call read %q, want %q", p, canon, out, want)
			}
			break
		}
		fallthrough
	case "write_file":
		if !res.OK() {
			if canOpen && canon != "." {
				t.Fatalf("%s %q: the tool given the spelling would write %q, yet the call failed: %v", tool, p, own, res.Err)
			}
			break
		}
		want := "written\n"
		if tool == "edit_file" {
			want = "edited " + contentFor(canon)
		}
		if got, err := o.realRoot.ReadFile(canon); err != nil || string(got) != want {
			t.Fatalf("%s %q: the hook saw %q, which holds %q afterwards (%v), want %q", tool, p, canon, got, err, want)
		}
		// Only that file changed, and the directories made for it.
		for _, k := range diff {
			if k != "real/"+canon && !(strings.HasPrefix("real/"+canon, k+"/") && after[k].mode.IsDir()) {
				t.Fatalf("%s %q: the hook saw %q, but %q changed too (all changes: %q)", tool, p, canon, k, diff)
			}
		}
		return
	case "list_dir":
		isDir := ownErr == nil && ownInfo.IsDir()
		if !res.OK() {
			if isDir {
				t.Fatalf("list_dir %q: the tool given the spelling lists %q, yet the call failed: %v", p, own, res.Err)
			}
			break
		}
		entries, err := readDir(o.realRoot, canon)
		if err != nil {
			t.Fatalf("list_dir %q succeeded, but the canonical path %q does not list: %v", p, canon, err)
		}
		want := fmt.Sprintf("[%s is empty]", workpath.Quote(canon))
		if len(entries) > 0 {
			var lines []string
			for _, e := range entries {
				line := workpath.Quote(e.Name())
				switch {
				case e.IsDir():
					line += "/"
				case e.Type()&fs.ModeSymlink != 0:
					line += "@"
				}
				lines = append(lines, line)
			}
			sort.Strings(lines)
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			sort.Strings(got)
			if !slices.Equal(got, lines) {
				t.Fatalf("list_dir %q: the hook saw %q, which holds %q, the call listed %q", p, canon, lines, got)
			}
			break
		}
		if out != want {
			t.Fatalf("list_dir %q: the hook saw %q, which is empty, the call printed %q", p, canon, out)
		}
	}
	if len(diff) > 0 {
		t.Fatalf("%s %q changed %q", tool, p, diff)
	}
}

func readDir(r *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
