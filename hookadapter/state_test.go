package hookadapter

import (
	"os"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// A session's state is written when an event changed it, and only then:
// an event that stores nothing costs no rename and no fsync, and the file
// a concurrent reader sees stays the same one.
func TestStateWrittenOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	event := func(change func(*core.Session)) {
		t.Helper()
		st, err := openState(dir, "claude-code", "s1")
		if err != nil {
			t.Fatal(err)
		}
		defer st.close()
		sess := core.NewSession("")
		if err := st.load(sess); err != nil {
			t.Fatal(err)
		}
		if change != nil {
			change(sess)
		}
		if err := st.save(sess); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := openState(dir, "claude-code", "s1")
	path := st.path
	st.close()

	event(nil)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("an empty state was written: %v", err)
	}
	event(func(s *core.Session) { s.Set("n", int64(1)) })
	before, err := os.Stat(path)
	if err != nil {
		t.Fatalf("a changed state was not written: %v", err)
	}
	event(nil)
	event(func(s *core.Session) { s.Set("n", int64(1)) }) // the same value
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Error("an unchanged state was written again (the file was replaced)")
	}
	event(func(s *core.Session) { s.Set("n", int64(2)) })
	changed, _ := os.Stat(path)
	if os.SameFile(before, changed) {
		t.Error("a changed state was not written")
	}
	sess := core.NewSession("")
	st, _ = openState(dir, "claude-code", "s1")
	defer st.close()
	if err := st.load(sess); err != nil {
		t.Fatal(err)
	}
	if v, _ := sess.Get("n"); v != int64(2) {
		t.Errorf("the state read back holds n = %v, want 2", v)
	}
}
