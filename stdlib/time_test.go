package stdlib

import (
	"strings"
	"testing"
	"time"
)

// TestNowDropsMonotonic: a time from the real clock renders without Go's
// "m=+0.0001" suffix, the same in every language.
func TestNowDropsMonotonic(t *testing.T) {
	if s := time.Now().String(); !strings.Contains(s, "m=") {
		t.Fatalf("time.Now().String() = %q; this Go keeps no monotonic reading to drop", s)
	}
	if s := Now(nil).String(); strings.Contains(s, "m=") {
		t.Errorf("Now(nil).String() = %q, want no monotonic reading", s)
	}
	fixed := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := Now(func() time.Time { return fixed }); !got.Equal(fixed) {
		t.Errorf("Now(fixed) = %v, want %v", got, fixed)
	}
}

func TestParseAndFields(t *testing.T) {
	p, err := ParseTime("2023-11-14T22:13:20Z", "", "")
	if err != nil || p.Unix() != 1700000000 {
		t.Fatalf("ParseTime = %v, %v", p, err)
	}
	ny, err := ParseTime("2023-11-14 10:00", "2006-01-02 15:04", "America/New_York")
	if err != nil || ny.Format(TimeFormat) != "2023-11-14 10:00:00 -0500 EST" {
		t.Errorf("ParseTime in New York = %v, %v", ny, err)
	}
	if _, err := ParseTime("x", "", "Mars/Olympus"); err == nil || !strings.Contains(err.Error(), "unknown time zone Mars/Olympus") {
		t.Errorf("ParseTime in an unknown zone: %v", err)
	}
	d, err := Date(2024, 2, 29, 12, 30, 45, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"year": 2024, "month": 2, "day": 29, "hour": 12, "minute": 30, "second": 45, "nanosecond": 7, "unix": 1709209845, "unix_nano": 1709209845000000007} {
		if got, ok := TimeField(d, name); !ok || got != want {
			t.Errorf("TimeField(%s) = %d, %v; want %d", name, got, ok, want)
		}
	}
	if _, ok := TimeField(d, "weekday"); ok {
		t.Error("TimeField(weekday) exists")
	}
	for name, want := range map[string]any{"hours": 1.5, "minutes": 90.0, "seconds": 5400.0, "milliseconds": int64(5400000), "microseconds": int64(5400000000), "nanoseconds": int64(5400000000000)} {
		if got, ok := DurationField(90*time.Minute, name); !ok || got != want {
			t.Errorf("DurationField(%s) = %v, want %v", name, got, want)
		}
	}
	if !IsValidTimezone("Europe/Paris") || IsValidTimezone("Nowhere/Else") {
		t.Error("IsValidTimezone")
	}
}

func TestTimeArithmetic(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	h := time.Hour
	for _, tc := range []struct {
		name string
		got  func() (any, bool, error)
		want any
	}{
		{"t+d", func() (any, bool, error) { return TimeBinary("+", t0, h, false) }, t0.Add(h)},
		{"d+t", func() (any, bool, error) { return DurationBinary("+", h, t0, false) }, t0.Add(h)},
		{"t-d", func() (any, bool, error) { return TimeBinary("-", t0, h, false) }, t0.Add(-h)},
		{"t-t", func() (any, bool, error) { return TimeBinary("-", t0.Add(h), t0, false) }, h},
		{"d*2", func() (any, bool, error) { return DurationBinary("*", h, int64(2), false) }, 2 * h},
		{"2*d", func() (any, bool, error) { return DurationBinary("*", h, int64(2), true) }, 2 * h},
		{"d*1.5", func() (any, bool, error) { return DurationBinary("*", h, 1.5, false) }, 90 * time.Minute},
		{"d/d", func() (any, bool, error) { return DurationBinary("/", h, 2*h, false) }, 0.5},
		{"d//d", func() (any, bool, error) { return DurationBinary("//", 3*h, 2*h, false) }, int64(1)},
		{"d/2", func() (any, bool, error) { return DurationBinary("/", h, int64(2), false) }, h / 2},
		{"d-d", func() (any, bool, error) { return DurationBinary("-", h, time.Minute, false) }, 59 * time.Minute},
		{"d-d reversed", func() (any, bool, error) { return DurationBinary("-", time.Minute, h, true) }, 59 * time.Minute},
	} {
		got, ok, err := tc.got()
		if !ok || err != nil || got != tc.want {
			t.Errorf("%s = %v, %v, %v; want %v", tc.name, got, ok, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		f    func() (any, bool, error)
	}{
		{"t+t", func() (any, bool, error) { return TimeBinary("+", t0, t0, false) }},
		{"t+1", func() (any, bool, error) { return TimeBinary("+", t0, int64(1), false) }},
		{"d-t", func() (any, bool, error) { return TimeBinary("-", t0, h, true) }},
		{"d+1", func() (any, bool, error) { return DurationBinary("+", h, int64(1), false) }},
		{"2/d", func() (any, bool, error) { return DurationBinary("/", h, int64(2), true) }},
		{"d*s", func() (any, bool, error) { return DurationBinary("*", h, "x", false) }},
	} {
		if v, ok, err := tc.f(); ok || err != nil {
			t.Errorf("%s = %v, %v, %v; want no such operation", tc.name, v, ok, err)
		}
	}
	for _, y := range []any{time.Duration(0), int64(0), 0.0} {
		if _, _, err := DurationBinary("/", h, y, false); err == nil || err.Error() != "time.duration division by zero" {
			t.Errorf("h / %v: %v", y, err)
		}
	}
	if _, _, err := DurationBinary("*", h, 1e300, false); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("h * 1e300: %v", err)
	}
}
