package stdlib

import (
	"fmt"
	"math"
	"time"
)

// The time module follows go.starlark.net's lib/time: the same functions,
// attributes, operators and rendering, so a script reads times the same
// way in every language.

// TimeFormat is how a time renders: Go's time.Time.String without the
// monotonic clock reading.
const TimeFormat = "2006-01-02 15:04:05.999999999 -0700 MST"

// Now is time.now(): clock's time (time.Now when clock is nil), without
// the monotonic reading, which would show as "m=+2.6" and means nothing
// to a script.
func Now(clock func() time.Time) time.Time {
	if clock == nil {
		clock = time.Now
	}
	return clock().Round(0)
}

// ParseTime is time.parse_time(x, format, location): x read with the
// layout format (RFC 3339 when empty) in location (UTC when empty).
func ParseTime(x, format, location string) (time.Time, error) {
	if format == "" {
		format = time.RFC3339
	}
	if location == "" || location == "UTC" {
		return time.Parse(format, x)
	}
	loc, err := time.LoadLocation(location)
	if err != nil {
		return time.Time{}, err
	}
	return time.ParseInLocation(format, x, loc)
}

// FromTimestamp is time.from_timestamp(sec, nsec): the Unix time, in the
// local zone as Go's time.Unix.
func FromTimestamp(sec, nsec int64) time.Time { return time.Unix(sec, nsec) }

// Date is time.time(year=..., ..., location=...): the time of that
// calendar date in location ("" is UTC), normalized as Go's time.Date.
func Date(year, month, day, hour, minute, second, nsec int, location string) (time.Time, error) {
	loc, err := time.LoadLocation(location)
	if err != nil {
		return time.Time{}, err
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, nsec, loc), nil
}

// IsValidTimezone is time.is_valid_timezone(name).
func IsValidTimezone(name string) bool {
	_, err := time.LoadLocation(name)
	return err == nil
}

// TimeFields are the attributes of a time that hold numbers, sorted.
var TimeFields = []string{"day", "hour", "minute", "month", "nanosecond", "second", "unix", "unix_nano", "year"}

// TimeField returns one of TimeFields as an int64.
func TimeField(t time.Time, name string) (int64, bool) {
	switch name {
	case "year":
		return int64(t.Year()), true
	case "month":
		return int64(t.Month()), true
	case "day":
		return int64(t.Day()), true
	case "hour":
		return int64(t.Hour()), true
	case "minute":
		return int64(t.Minute()), true
	case "second":
		return int64(t.Second()), true
	case "nanosecond":
		return int64(t.Nanosecond()), true
	case "unix":
		return t.Unix(), true
	case "unix_nano":
		return t.UnixNano(), true
	}
	return 0, false
}

// InLocation is t.in_location(name).
func InLocation(t time.Time, name string) (time.Time, error) {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.Time{}, err
	}
	return t.In(loc), nil
}

// DurationFields are the attributes of a duration, sorted.
var DurationFields = []string{"hours", "microseconds", "milliseconds", "minutes", "nanoseconds", "seconds"}

// DurationField returns one of DurationFields: hours, minutes and seconds
// as float64, the rest as int64.
func DurationField(d time.Duration, name string) (any, bool) {
	switch name {
	case "hours":
		return d.Hours(), true
	case "minutes":
		return d.Minutes(), true
	case "seconds":
		return d.Seconds(), true
	case "milliseconds":
		return d.Milliseconds(), true
	case "microseconds":
		return d.Microseconds(), true
	case "nanoseconds":
		return d.Nanoseconds(), true
	}
	return nil, false
}

// TimeBinary applies op to t and y (y on the left when reversed):
//
//	time + duration = time     duration + time = time
//	time - duration = time     time - time = duration
//
// ok is false for any other operands.
func TimeBinary(op string, t time.Time, y any, reversed bool) (v any, ok bool, err error) {
	switch y := y.(type) {
	case time.Duration:
		switch {
		case op == "+":
			return t.Add(y), true, nil
		case op == "-" && !reversed:
			return t.Add(-y), true, nil
		}
	case time.Time:
		if op == "-" {
			if reversed {
				return y.Sub(t), true, nil
			}
			return t.Sub(y), true, nil
		}
	}
	return nil, false, nil
}

// DurationBinary applies op to d and y (y on the left when reversed):
//
//	duration + duration = duration    duration - duration = duration
//	duration + time = time
//	duration * number = duration      number * duration = duration
//	duration / duration = float       duration // duration = int
//	duration / number = duration
//
// ok is false for any other operands. Division by zero, and a product
// or quotient beyond about 292 years, are errors.
func DurationBinary(op string, d time.Duration, y any, reversed bool) (v any, ok bool, err error) {
	switch y := y.(type) {
	case time.Duration:
		x := d
		if reversed {
			x, y = y, x
		}
		switch op {
		case "+":
			return x + y, true, nil
		case "-":
			return x - y, true, nil
		case "/", "//":
			if y == 0 {
				return nil, true, fmt.Errorf("time.duration division by zero")
			}
			if op == "//" {
				return int64(x / y), true, nil
			}
			return float64(x) / float64(y), true, nil
		}
	case time.Time:
		if op == "+" {
			return y.Add(d), true, nil
		}
	case int64:
		switch {
		case op == "*":
			return d * time.Duration(y), true, nil
		case op == "/" && !reversed:
			if y == 0 {
				return nil, true, fmt.Errorf("time.duration division by zero")
			}
			return d / time.Duration(y), true, nil
		}
	case float64:
		switch {
		case op == "*":
			return scaled(float64(d) * y)
		case op == "/" && !reversed:
			if y == 0 {
				return nil, true, fmt.Errorf("time.duration division by zero")
			}
			return scaled(float64(d) / y)
		}
	}
	return nil, false, nil
}

// scaled is a duration of f nanoseconds, or an error when it has none.
func scaled(f float64) (any, bool, error) {
	if math.IsNaN(f) || f >= math.MaxInt64 || f <= math.MinInt64 {
		return nil, true, fmt.Errorf("time.duration out of range: %g nanoseconds (at most about 292 years)", f)
	}
	return time.Duration(f), true, nil
}
