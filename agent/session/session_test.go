package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

func newStore(t testing.TB, workdir string) *Store {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return &Store{Workdir: workdir}
}

// writeTurn appends one turn: the prompt when given, an assistant message
// with a call, its result, and the commit.
func writeTurn(t testing.TB, s *Session, n int, prompt string) {
	t.Helper()
	if prompt != "" {
		must(t, s.Append(provider.Message{Role: provider.RoleUser, Content: prompt}, nil))
	}
	id := fmt.Sprintf("c%d", n)
	must(t, s.Append(provider.Message{Role: provider.RoleAssistant, Content: "turn " + fmt.Sprint(n),
		ToolCalls: []provider.ToolCall{{ID: id, Name: "read", Args: json.RawMessage(fmt.Sprintf(`{ "n": %d }`, n))}}}, nil))
	must(t, s.Append(provider.Message{Role: provider.RoleTool, ToolCallID: id, Name: "read", Content: "result " + fmt.Sprint(n)},
		[]core.Decision{{Stage: core.StageApproval, Hook: "default", Verdict: core.VerdictAllow, Reason: "read-only"}}))
	must(t, s.Commit(n, provider.Usage{InputTokens: n, OutputTokens: 1}))
}

// saved saves session id of st with one turn for each prompt, closed,
// and returns its file.
func saved(t testing.TB, st *Store, id string, prompts ...string) string {
	t.Helper()
	s, err := st.Create(id, "test")
	must(t, err)
	for n, prompt := range prompts {
		writeTurn(t, s, n+1, prompt)
	}
	must(t, s.Close())
	return s.Path()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lineStarts returns the offset of each line of b.
func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// TestTruncatedLastRecord cuts the file at every byte offset of its last
// record (a crash while writing it): loading resumes at the turn before,
// with a warning naming the file and line; a writer appends after the
// torn line without gluing onto it, and nothing saved is rewritten.
func TestTruncatedLastRecord(t *testing.T) {
	st := newStore(t, "/w")
	s, err := st.Create("cut", "test")
	must(t, err)
	for n := 1; n <= 3; n++ {
		writeTurn(t, s, n, map[bool]string{true: "go"}[n == 1])
	}
	must(t, s.Close())
	whole, err := os.ReadFile(s.Path())
	must(t, err)
	starts := lineStarts(whole)
	last := starts[len(starts)-1]
	lastLine := len(starts)
	for cut := last; cut < len(whole); cut++ {
		must(t, os.WriteFile(s.Path(), whole[:cut], 0o600))
		l, err := Load(s.Path())
		must(t, err)
		if cut == len(whole)-1 { // only the newline is missing: the record is whole
			if l.Turns != 3 || len(l.Warnings) != 0 {
				t.Errorf("cut at %d (no newline): %d turns, warnings %q; want 3, none", cut, l.Turns, l.Warnings)
			}
		} else {
			if l.Turns != 2 || len(l.Messages) != 5 {
				t.Fatalf("cut at %d: %d turns, %d messages; want 2, 5", cut, l.Turns, len(l.Messages))
			}
			if len(l.Warnings) == 0 || !strings.Contains(strings.Join(l.Warnings, "\n"), s.Path()+":") {
				t.Fatalf("cut at %d: warnings %q, want one naming %s and the line", cut, l.Warnings, s.Path())
			}
			if cut > last && !strings.Contains(l.Warnings[0], fmt.Sprintf(":%d: the last record is cut short", lastLine)) {
				t.Errorf("cut at %d: warning %q, want line %d cut short", cut, l.Warnings[0], lastLine)
			}
		}
		// Go on writing, then load again.
		w, l2, err := st.Open("cut")
		must(t, err)
		writeTurn(t, w, 9, "again")
		must(t, w.Close())
		if l2.Turns != l.Turns {
			t.Errorf("Open loaded %d turns, Load %d", l2.Turns, l.Turns)
		}
		got, err := os.ReadFile(s.Path())
		must(t, err)
		if !bytes.HasPrefix(got, whole[:cut]) {
			t.Fatalf("cut at %d: the saved bytes were rewritten", cut)
		}
		l3, err := Load(s.Path())
		must(t, err)
		if l3.Turns != l.Turns+1 || len(l3.Messages) != len(l.Messages)+3 || l3.LastPrompt() != "again" {
			t.Fatalf("cut at %d, then a turn: %d turns, %d messages, last prompt %q; want %d, %d, again (warnings %q)",
				cut, l3.Turns, len(l3.Messages), l3.LastPrompt(), l.Turns+1, len(l.Messages)+3, l3.Warnings)
		}
	}
}

// TestCorruptRecordInMiddle: a corrupt line inside the second turn
// resumes after the first, with a warning; what follows it is left out
// but kept, and a resumed session goes on after it.
func TestCorruptRecordInMiddle(t *testing.T) {
	st := newStore(t, "/w")
	s, err := st.Create("bad", "test")
	must(t, err)
	for n := 1; n <= 3; n++ {
		writeTurn(t, s, n, fmt.Sprint("p", n))
	}
	must(t, s.Close())
	b, err := os.ReadFile(s.Path())
	must(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	// Lines: 1 header, 2-5 turn 1, 6-9 turn 2, 10-13 turn 3.
	lines[6] = `{"t":"msg","msg":{"role":"assist` + "\x00garbage\n"
	must(t, os.WriteFile(s.Path(), []byte(strings.Join(lines, "")), 0o600))
	l, err := Load(s.Path())
	must(t, err)
	if l.Turns != 1 || len(l.Messages) != 3 || l.LastPrompt() != "p1" {
		t.Fatalf("%d turns, %d messages, last prompt %q; want 1, 3, p1", l.Turns, len(l.Messages), l.LastPrompt())
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], s.Path()+":7: a corrupt record") || !strings.Contains(l.Warnings[0], "line 5") {
		t.Errorf("warnings %q, want one for line 7 going on from line 5", l.Warnings)
	}
	w, _, err := st.Open("bad")
	must(t, err)
	writeTurn(t, w, 4, "p4")
	must(t, w.Close())
	l, err = Load(s.Path())
	must(t, err)
	if l.Turns != 2 || len(l.Messages) != 6 || l.Messages[3].Content != "p4" {
		t.Errorf("after resuming: %d turns, %d messages; want 2, 6 with p4 after p1's turn", l.Turns, len(l.Messages))
	}
}

// TestHostileRecords: records that are JSON but wrong are corrupt
// records, not a crash or a wrong conversation.
func TestHostileRecords(t *testing.T) {
	for name, line := range map[string]string{
		"unknown type":   `{"t":"zap"}`,
		"second header":  `{"t":"session","id":"x"}`,
		"args mismatch":  `{"t":"msg","msg":{"role":"assistant","tool_calls":[{"id":"a","name":"b","args":null}]}}`,
		"args not json":  `{"t":"msg","msg":{"role":"assistant","tool_calls":[{"id":"a","name":"b","args":null}]},"args":["{not json"]}`,
		"replaced args":  `{"t":"replace","msgs":[{"msg":{"role":"assistant","tool_calls":[{"id":"a","name":"b","args":null}]},"args":["nope"]}]}`,
		"bad role":       `{"t":"msg","msg":{"role":"root","content":"x"}}`,
		"msg without":    `{"t":"msg"}`,
		"replace bad":    `{"t":"replace","msgs":[{"msg":{"role":"??"}}]}`,
		"not an object":  `[1,2,3]`,
		"invalid utf8 j": "{\"t\":\"msg\",\"msg\":{\"role\":\"user\",\"content\":\"\xff\"}}x",
	} {
		t.Run(name, func(t *testing.T) {
			path := saved(t, newStore(t, "/w"), "h", "p1")
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			fmt.Fprintf(f, "%s\n%s\n", line, `{"t":"msg","msg":{"role":"user","content":"after"}}`)
			f.Close()
			l, err := Load(path)
			must(t, err)
			if l.Turns != 1 || len(l.Messages) != 3 || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], ":6: ") {
				t.Errorf("%d turns, %d messages, warnings %q; want 1, 3, one for line 6", l.Turns, len(l.Messages), l.Warnings)
			}
		})
	}
}

// TestRoundTrip: messages come back as they were written: arguments
// verbatim, content that is not UTF-8, blocks, cache marks, a compaction,
// a line longer than the reader's buffer.
func TestRoundTrip(t *testing.T) {
	st := newStore(t, "/w")
	s, err := st.New("", "test")
	must(t, err)
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("New created the file: %v", err)
	}
	huge := strings.Repeat("x<&>", 100_000)
	msgs := []provider.Message{
		{Role: provider.RoleUser, Content: "go", Cache: true},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{
			{ID: "a", Name: "t", Args: json.RawMessage(`{ "a" : "<b>" }`)},
			{ID: "b", Name: "t", InvalidArgs: `{"x`},
			{ID: "c", Name: "t", Args: json.RawMessage{}},
		}},
		{Role: provider.RoleTool, ToolCallID: "a", Name: "t", Content: "\xff\xfe", Blocks: []core.Block{{Type: "image", Data: []byte{0, 1, 2}}}},
		{Role: provider.RoleTool, ToolCallID: "b", Name: "t", Content: huge, IsError: true},
	}
	for _, m := range msgs[:2] {
		must(t, s.Append(m, nil))
	}
	must(t, s.Replace(msgs[:2], "compact"))
	for _, m := range msgs[2:] {
		must(t, s.Append(m, nil))
	}
	must(t, s.Commit(1, provider.Usage{}))
	must(t, s.Close())
	l, err := Load(s.Path())
	must(t, err)
	if len(l.Messages) != len(msgs) || len(l.Warnings) > 0 {
		t.Fatalf("%d messages, warnings %q", len(l.Messages), l.Warnings)
	}
	for i := range msgs {
		if fmt.Sprintf("%#v", l.Messages[i]) != fmt.Sprintf("%#v", msgs[i]) {
			t.Errorf("message %d:\n got %#v\nwant %#v", i, l.Messages[i], msgs[i])
		}
	}
	if l.ID != s.ID() || l.Workdir != "/w" || l.Provider != "test" || l.Created.IsZero() {
		t.Errorf("header %q %q %q %v", l.ID, l.Workdir, l.Provider, l.Created)
	}
}

// TestConcurrentWritersRefused: a second writer of a session is refused,
// naming the process that writes it; once that one closes, it may.
func TestConcurrentWritersRefused(t *testing.T) {
	st := newStore(t, "/w")
	s, err := st.Create("busy", "test")
	must(t, err)
	other := &Store{Workdir: "/w"}
	_, _, err = other.Open("busy")
	want := fmt.Sprintf("session busy is open in another agentsh (pid %d)", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "start a new session") || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want %q and what to do", err, want)
	}
	if _, err := other.Create("busy", "test"); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("Create of a saved session: %v", err)
	}
	// Two new sessions of the same name: the second's first write fails.
	n, _ := other.New("busy", "test")
	if err := n.Append(provider.Message{Role: provider.RoleUser, Content: "x"}, nil); err == nil {
		t.Error("a second writer of a new session of the same name was not refused")
	}
	writeTurn(t, s, 1, "mine")
	must(t, s.Close())
	w, l, err := other.Open("busy")
	if err != nil {
		t.Fatalf("Open after the writer closed: %v", err)
	}
	defer w.Close()
	if l.Turns != 1 || l.LastPrompt() != "mine" {
		t.Errorf("loaded %d turns, last prompt %q", l.Turns, l.LastPrompt())
	}
	// The resumer's pid is the holder from now on.
	if _, _, err := st.Open("busy"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open while resumed elsewhere: %v", err)
	}
}

// TestModes: the directory is 0700 and the files 0600.
func TestModes(t *testing.T) {
	file := saved(t, newStore(t, "/w"), "m", "x")
	dir, _ := DefaultDir()
	if filepath.Dir(file) != dir || !strings.HasSuffix(dir, filepath.Join("agentsh", "sessions")) {
		t.Errorf("saved in %s, want %s", file, dir)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, file: 0o600} {
		fi, err := os.Stat(path)
		must(t, err)
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// TestListAndLatest: sessions of a workdir, most recently written first;
// Latest of a workdir never picks another workdir's.
func TestListAndLatest(t *testing.T) {
	st := newStore(t, "/a")
	stB := &Store{Workdir: "/b"}
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	mk := func(st *Store, id string, turns int, minute int) {
		s, err := st.Create(id, "test")
		must(t, err)
		for n := 1; n <= turns; n++ {
			writeTurn(t, s, n, fmt.Sprint(id, " prompt ", n))
		}
		must(t, s.Close())
		at := base.Add(time.Duration(minute) * time.Minute)
		must(t, os.Chtimes(s.Path(), at, at))
	}
	mk(st, "a-old", 1, 0)
	mk(st, "a-new", 3, 20)
	mk(st, "a-mid", 2, 10)
	mk(stB, "b-newest", 1, 30)
	list, err := st.List("/a")
	must(t, err)
	var got []string
	for _, i := range list {
		got = append(got, fmt.Sprintf("%s:%d:%s", i.ID, i.Turns, i.LastPrompt))
	}
	want := "a-new:3:a-new prompt 3 a-mid:2:a-mid prompt 2 a-old:1:a-old prompt 1"
	if strings.Join(got, " ") != want {
		t.Errorf("List(/a) = %q, want %q", strings.Join(got, " "), want)
	}
	if i, ok, err := st.Latest("/a"); err != nil || !ok || i.ID != "a-new" {
		t.Errorf("Latest(/a) = %s %v %v, want a-new", i.ID, ok, err)
	}
	if i, ok, err := st.Latest(""); err != nil || !ok || i.ID != "b-newest" {
		t.Errorf("Latest() = %s %v %v, want b-newest", i.ID, ok, err)
	}
	if _, ok, err := st.Latest("/c"); ok || err != nil {
		t.Errorf("Latest(/c) found one: %v", err)
	}
	if _, _, err := st.Open("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open(nope) = %v, want ErrNotFound", err)
	}
	if _, _, err := st.Open("../etc/passwd"); err == nil || !strings.Contains(err.Error(), "want 1 to 128 letters") {
		t.Errorf("Open of a path: %v", err)
	}
	// An empty store lists nothing.
	empty := &Store{Dir: filepath.Join(t.TempDir(), "none")}
	if l, err := empty.List(""); err != nil || len(l) != 0 {
		t.Errorf("empty store: %v %v", l, err)
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"work", "a.b", "a-b_c", "20261201T192201-3f9a1c", strings.Repeat("x", 128)} {
		if err := CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", ".hidden", "-x", "--json", "a/b", "../x", "a b", "é", strings.Repeat("x", 129)} {
		if err := CheckID(id); err == nil || !strings.Contains(err.Error(), "want 1 to 128 letters") {
			t.Errorf("CheckID(%q) = %v, want it refused", id, err)
		}
	}
}

// TestNewIDs are sortable by time and unique.
func TestNewIDs(t *testing.T) {
	at := time.Date(2026, 12, 1, 19, 22, 1, 0, time.UTC)
	a, b := NewID(at), NewID(at.Add(time.Second))
	if !strings.HasPrefix(a, "20261201T192201-") || len(a) != len("20261201T192201-3f9a1c") || a >= b || CheckID(a) != nil {
		t.Errorf("NewID = %q, %q", a, b)
	}
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		seen[NewID(at)] = true
	}
	if len(seen) < 990 {
		t.Errorf("%d distinct ids of 1000 in one second", len(seen))
	}
}

// TestHeaderAgreesWithLoad: List and Latest tell a file's workdir from
// its first line alone; for every kind of first line that must be what a
// full Load makes of it, or --continue would pick another session.
func TestHeaderAgreesWithLoad(t *testing.T) {
	dir := t.TempDir()
	header := func(id, workdir string) string {
		b, err := encode(&record{T: recSession, V: formatVersion, ID: id, Workdir: workdir, Provider: "test", Created: "2026-12-01T10:00:00Z"})
		must(t, err)
		return string(b)
	}
	msg := `{"t":"msg","msg":{"role":"user","content":"hi"}}` + "\n"
	long := "/" + strings.Repeat("deep/", 14000) // a header past maxHeader
	for _, tc := range []struct{ name, content, workdir string }{
		{"empty", "", ""},
		{"header", header("h", "/a") + msg, "/a"},
		{"header alone, no newline", strings.TrimSuffix(header("h", "/a"), "\n"), "/a"},
		{"torn header", header("h", "/a")[:30], ""},
		{"corrupt header", `{"t":"session","workdir":"/a",` + "\n" + msg, ""},
		{"blank line first", "\n" + header("h", "/a"), ""},
		{"a message first", msg + header("h", "/a"), ""},
		{"another id", header("other-id", "/a"), "/a"},
		{"a long header", header("h", long) + msg, long},
		{"a long corrupt line", `{"t":"session","workdir":"/a","x":"` + strings.Repeat("x", 2*maxHeader) + "\n", ""},
		{"not json", "hello\n", ""},
		{"wrong type", `{"t":"turn","workdir":"/a"}` + "\n", ""},
		// Load keeps decision records undecoded, so a bad one in a header
		// leaves it a header.
		{"decisions not a list", `{"t":"session","workdir":"/a","decisions":"oops"}` + "\n", "/a"},
		{"workdir not a string", `{"t":"session","workdir":7}` + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+fileExt)
			must(t, os.WriteFile(path, []byte(tc.content), 0o600))
			h, err := readHeader(path)
			must(t, err)
			l, err := Load(path)
			must(t, err)
			if h.Workdir != tc.workdir || l.Workdir != tc.workdir {
				t.Errorf("readHeader's workdir %.40q, Load's %.40q, want %.40q", h.Workdir, l.Workdir, tc.workdir)
			}
			if want := strings.TrimSuffix(filepath.Base(path), fileExt); l.ID != want {
				t.Errorf("Load's id %q, want the file's name %q", l.ID, want)
			}
		})
	}
}

// TestLatestSkipsOtherWorkdirs: Latest and List of a workdir leave out
// the sessions of others however they are written, and a session whose
// header is unreadable belongs to no workdir.
func TestLatestSkipsOtherWorkdirs(t *testing.T) {
	st := newStore(t, "/a")
	mine := saved(t, st, "mine", "my prompt")
	old := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	must(t, os.Chtimes(mine, old, old))
	saved(t, &Store{Workdir: "/b"}, "theirs", "their prompt") // the same directory, by XDG_STATE_HOME
	dir, err := st.dir()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "broken"+fileExt), []byte("not a header\n"), 0o600))
	if i, ok, err := st.Latest("/a"); err != nil || !ok || i.ID != "mine" || i.LastPrompt != "my prompt" || i.Turns != 1 {
		t.Errorf("Latest(/a) = %+v %v %v, want mine with its prompt", i, ok, err)
	}
	list, err := st.List("/a")
	must(t, err)
	if len(list) != 1 || list[0].ID != "mine" {
		t.Errorf("List(/a) = %+v, want mine alone", list)
	}
	all, err := st.List("")
	must(t, err)
	var ids []string
	for _, i := range all {
		ids = append(ids, i.ID)
	}
	if got := strings.Join(ids, " "); got != "theirs broken mine" && got != "broken theirs mine" {
		t.Errorf("List() = %s, want every session, the old one last", got)
	}
}

// TestRenamedAndCopiedSessions: a session's id is its file's name, so a
// renamed session resumes and continues under its new name, and a copy
// is a session of its own that --continue opens, not the original.
func TestRenamedAndCopiedSessions(t *testing.T) {
	st := newStore(t, "/w")
	work := saved(t, st, "work", "first")
	dir := filepath.Dir(work)
	must(t, os.Rename(work, filepath.Join(dir, "renamed"+fileExt)))
	i, ok, err := st.Latest("/w")
	if err != nil || !ok || i.ID != "renamed" {
		t.Fatalf("Latest after a rename = %q %v %v, want renamed", i.ID, ok, err)
	}
	r, l, err := st.Open(i.ID)
	must(t, err)
	if l.ID != "renamed" || l.Turns != 1 || r.ID() != "renamed" {
		t.Errorf("opened %q with %d turns", l.ID, l.Turns)
	}
	writeTurn(t, r, 2, "second")
	must(t, r.Close())

	b, err := os.ReadFile(filepath.Join(dir, "renamed"+fileExt))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "backup"+fileExt), b, 0o600))
	later := time.Now().Add(time.Minute)
	must(t, os.Chtimes(filepath.Join(dir, "backup"+fileExt), later, later))
	c, l, err := st.Open("backup")
	must(t, err)
	writeTurn(t, c, 3, "on the copy")
	must(t, c.Close())
	list, err := st.List("/w")
	must(t, err)
	var got []string
	for _, i := range list {
		got = append(got, fmt.Sprintf("%s:%d", i.ID, i.Turns))
	}
	if strings.Join(got, " ") != "backup:3 renamed:2" {
		t.Errorf("List = %q, want the copy with its own turn, then the original", got)
	}
	orig, err := Load(filepath.Join(dir, "renamed"+fileExt))
	must(t, err)
	if orig.Turns != 2 || orig.LastPrompt() != "second" {
		t.Errorf("the original has %d turns, last prompt %q: the copy's turn went into it", orig.Turns, orig.LastPrompt())
	}
}
