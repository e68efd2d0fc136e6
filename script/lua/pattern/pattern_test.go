package pattern

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"[a", "malformed pattern (missing ']')"},
		{"[", "malformed pattern (missing ']')"},
		{"[%", "malformed pattern (missing ']')"},
		{"[]", "malformed pattern (missing ']')"},
		{"%", "malformed pattern (ends with '%')"},
		{"a%", "malformed pattern (ends with '%')"},
		{"(", "unfinished capture"},
		{"(()", "unfinished capture"},
		{"a)", "invalid pattern capture"},
		{"%b", "malformed pattern (missing arguments to '%b')"},
		{"%bx", "malformed pattern (missing arguments to '%b')"},
		{"%f", "missing '[' after '%f' in pattern"},
		{"%fa", "missing '[' after '%f' in pattern"},
		{"%0", "invalid capture index %0"},
		{"%1", "invalid capture index %1"},
		{"(a%1)", "invalid capture index %1"},
		{"(a)%2", "invalid capture index %2"},
		{strings.Repeat("()", 33), "too many captures"},
		{strings.Repeat("a?", MaxItems+1), "pattern too complex (more than 1000 repetitions and captures)"},
	} {
		_, err := Compile(tc.p, true)
		var pe *Error
		if !errors.As(err, &pe) || pe.Msg != tc.want || !strings.Contains(err.Error(), " in pattern \"") {
			t.Errorf("Compile(%.20q) = %v, want %q", tc.p, err, tc.want)
		}
	}
	for _, p := range []string{"", "^", "$", "^$", "[]]", "[^]]", "%]", "()", strings.Repeat("()", 32), strings.Repeat("a?", MaxItems), "(a)%1", "%b()", "%f[%w]"} {
		if _, err := Compile(p, true); err != nil {
			t.Errorf("Compile(%.20q): %v", p, err)
		}
	}
	// A long pattern is cut in the message.
	if _, err := Compile(strings.Repeat("x", 10000)+"%", true); err == nil || len(err.Error()) > 150 {
		t.Errorf("Compile of a long malformed pattern: %.200v", err)
	}
}

func TestAnchor(t *testing.T) {
	p, _ := Compile("^a", true)
	m := p.NewMatcher(nil, "ba")
	if s, e, err := m.Find(0); s != -1 || e != -1 || err != nil {
		t.Errorf("anchored find = %d, %d, %v", s, e, err)
	}
	p, _ = Compile("^a", false) // as gmatch reads it: a '^'
	m = p.NewMatcher(nil, "a^a")
	if s, e, _ := m.Find(0); s != 1 || e != 3 {
		t.Errorf("unanchored ^a = %d, %d", s, e)
	}
}

func TestCaptures(t *testing.T) {
	p, _ := Compile("(%w+)()=(%d*)", true)
	m := p.NewMatcher(nil, "  key=42")
	s, e, err := m.Find(0)
	if s != 2 || e != 8 || err != nil || m.NumCaptures() != 3 {
		t.Fatalf("Find = %d, %d, %v, %d captures", s, e, err, m.NumCaptures())
	}
	if c := m.Capture(0); c != (Capture{Start: 2, End: 5}) {
		t.Errorf("capture 1 = %+v", c)
	}
	if c := m.Capture(1); c != (Capture{Start: 5, End: 5, Position: true}) {
		t.Errorf("position capture = %+v", c)
	}
	if c := m.Capture(2); c != (Capture{Start: 6, End: 8}) {
		t.Errorf("capture 3 = %+v", c)
	}
}

// catastrophic backtracks through every way to split 40 characters into
// eight parts before it fails: hours of work.
const catastrophic = "(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b"

// TestMatchStopsWithContext: a match that would run for hours ends soon
// after its context does.
func TestMatchStopsWithContext(t *testing.T) {
	p, err := Compile(catastrophic, true)
	if err != nil {
		t.Fatal(err)
	}
	subject := strings.Repeat("a", 40)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := p.NewMatcher(done, subject).Find(0); !errors.Is(err, context.Canceled) {
		t.Errorf("Find with a cancelled context: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.NewMatcher(ctx, subject).MatchAt(0)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it get going
	cancel()
	cancelled := time.Now()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("MatchAt: %v, want context.Canceled", err)
		}
	case <-time.After(testwait.Bound(20 * time.Second)):
		t.Fatalf("MatchAt still running %v after its context ended", time.Since(cancelled))
	}
}
