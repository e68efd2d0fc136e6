package lua

import (
	"cmp"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// timeValue and durationValue are the Values of the time module's
// userdata: Starlark's time.time and time.duration, with the same fields
// and the same tostring. Being Lua numbers, t.unix_nano and d.nanoseconds
// are exact only up to 2^53 (about 104 days of nanoseconds); beyond that
// they are the nearest float, within about a microsecond today.
type (
	timeValue     time.Time
	durationValue time.Duration
)

func (timeValue) typeName() string     { return "time" }
func (durationValue) typeName() string { return "duration" }

// timeModule: now, from_timestamp, parse_time, parse_duration and the
// duration constants nanosecond … hour.
func (in *Interp) timeModule(L *lua.LState) *lua.LTable {
	timeMeta, durMeta := in.timeMetas(L)
	newTime := func(L *lua.LState, t time.Time) int {
		L.Push(in.newObject(L, timeValue(t), timeMeta))
		return 1
	}
	newDur := func(L *lua.LState, d time.Duration) lua.LValue { return in.newObject(L, durationValue(d), durMeta) }
	m := newModule(L, map[string]lua.LGFunction{
		"now": func(L *lua.LState) int { return newTime(L, in.now()) },
		"from_timestamp": func(L *lua.LState) int {
			return newTime(L, time.Unix(int64(L.CheckNumber(1)), int64(L.OptNumber(2, 0))))
		},
		"parse_time": func(L *lua.LState) int {
			layout := L.OptString(2, time.RFC3339)
			loc, err := time.LoadLocation(L.OptString(3, "UTC"))
			if err != nil {
				L.RaiseError("time.parse_time: %v", err)
			}
			t, err := time.ParseInLocation(layout, L.CheckString(1), loc)
			if err != nil {
				L.RaiseError("time.parse_time: %v", err)
			}
			return newTime(L, t)
		},
		"parse_duration": func(L *lua.LState) int {
			d, err := time.ParseDuration(L.CheckString(1))
			if err != nil {
				L.RaiseError("time.parse_duration: %v", err)
			}
			L.Push(newDur(L, d))
			return 1
		},
	})
	for name, d := range map[string]time.Duration{"nanosecond": time.Nanosecond, "microsecond": time.Microsecond,
		"millisecond": time.Millisecond, "second": time.Second, "minute": time.Minute, "hour": time.Hour} {
		m.RawSetString(name, newDur(L, d))
	}
	return m
}

func (in *Interp) timeMetas(L *lua.LState) (timeMeta, durMeta *lua.LTable) {
	timeMeta, durMeta = L.NewTable(), L.NewTable()
	toTime := func(L *lua.LState, n int) (time.Time, bool) {
		if ud, ok := L.Get(n).(*lua.LUserData); ok {
			if t, ok := ud.Value.(timeValue); ok {
				return time.Time(t), true
			}
		}
		return time.Time{}, false
	}
	toDur := func(L *lua.LState, n int) (time.Duration, bool) {
		if ud, ok := L.Get(n).(*lua.LUserData); ok {
			if d, ok := ud.Value.(durationValue); ok {
				return time.Duration(d), true
			}
		}
		return 0, false
	}
	pushTime := func(L *lua.LState, t time.Time) int {
		L.Push(in.newObject(L, timeValue(t), timeMeta))
		return 1
	}
	pushDur := func(L *lua.LState, d time.Duration) int {
		L.Push(in.newObject(L, durationValue(d), durMeta))
		return 1
	}
	format := L.NewFunction(func(L *lua.LState) int {
		t, ok := toTime(L, 1)
		if !ok {
			L.ArgError(1, "want a time, as in t:format(layout)")
		}
		L.Push(lua.LString(t.Format(L.CheckString(2))))
		return 1
	})
	set := func(mt *lua.LTable, name string, fn lua.LGFunction) { mt.RawSetString(name, L.NewFunction(fn)) }
	// setCompare gives mt ==, < and <= from order, which compares the two
	// operands as cmp.Compare does.
	setCompare := func(mt *lua.LTable, order func(L *lua.LState) int) {
		for name, holds := range map[string]func(int) bool{
			"__eq": func(c int) bool { return c == 0 },
			"__lt": func(c int) bool { return c < 0 },
			"__le": func(c int) bool { return c <= 0 },
		} {
			set(mt, name, func(L *lua.LState) int {
				L.Push(lua.LBool(holds(order(L))))
				return 1
			})
		}
	}
	for _, x := range []struct {
		mt   *lua.LTable
		name string
	}{{timeMeta, "time"}, {durMeta, "duration"}} {
		x.mt.RawSetString("__name", lua.LString(x.name))
		x.mt.RawSetString("__metatable", lua.LString(x.name))
	}

	set(timeMeta, "__tostring", func(L *lua.LState) int {
		t, _ := toTime(L, 1)
		L.Push(lua.LString(t.String()))
		return 1
	})
	set(timeMeta, "__index", func(L *lua.LState) int {
		t, _ := toTime(L, 1)
		var v lua.LValue
		switch key := L.CheckString(2); key {
		case "year":
			v = lua.LNumber(t.Year())
		case "month":
			v = lua.LNumber(t.Month())
		case "day":
			v = lua.LNumber(t.Day())
		case "hour":
			v = lua.LNumber(t.Hour())
		case "minute":
			v = lua.LNumber(t.Minute())
		case "second":
			v = lua.LNumber(t.Second())
		case "nanosecond":
			v = lua.LNumber(t.Nanosecond())
		case "unix":
			v = lua.LNumber(t.Unix())
		case "unix_nano":
			v = lua.LNumber(t.UnixNano())
		case "format":
			v = format
		default:
			L.RaiseError("time has no field %q", key)
		}
		L.Push(v)
		return 1
	})
	set(timeMeta, "__sub", func(L *lua.LState) int {
		t, _ := toTime(L, 1)
		if u, ok := toTime(L, 2); ok {
			return pushDur(L, t.Sub(u))
		}
		if d, ok := toDur(L, 2); ok {
			return pushTime(L, t.Add(-d))
		}
		L.RaiseError("time - %s: want a time or a duration", typeName(L.Get(2)))
		return 0
	})
	set(timeMeta, "__add", func(L *lua.LState) int {
		t, ok := toTime(L, 1)
		d, ok2 := toDur(L, 2)
		if !ok {
			t, ok = toTime(L, 2)
			d, ok2 = toDur(L, 1)
		}
		if !ok || !ok2 {
			L.RaiseError("time + x: want a duration")
		}
		return pushTime(L, t.Add(d))
	})
	setCompare(timeMeta, func(L *lua.LState) int {
		t, _ := toTime(L, 1)
		u, _ := toTime(L, 2)
		return t.Compare(u)
	})

	set(durMeta, "__tostring", func(L *lua.LState) int {
		d, _ := toDur(L, 1)
		L.Push(lua.LString(d.String()))
		return 1
	})
	set(durMeta, "__index", func(L *lua.LState) int {
		d, _ := toDur(L, 1)
		var v float64
		switch key := L.CheckString(2); key {
		case "hours":
			v = d.Hours()
		case "minutes":
			v = d.Minutes()
		case "seconds":
			v = d.Seconds()
		case "milliseconds":
			v = float64(d.Milliseconds())
		case "microseconds":
			v = float64(d.Microseconds())
		case "nanoseconds":
			v = float64(d.Nanoseconds())
		default:
			L.RaiseError("duration has no field %q", key)
		}
		L.Push(lua.LNumber(v))
		return 1
	})
	arith := func(op func(a, b time.Duration) time.Duration) lua.LGFunction {
		return func(L *lua.LState) int {
			a, ok := toDur(L, 1)
			b, ok2 := toDur(L, 2)
			if !ok || !ok2 {
				L.RaiseError("duration arithmetic needs two durations")
			}
			return pushDur(L, op(a, b))
		}
	}
	addDur := arith(func(a, b time.Duration) time.Duration { return a + b })
	set(durMeta, "__add", func(L *lua.LState) int {
		// duration + time: Lua asks the left operand's metatable first.
		if t, ok := toTime(L, 2); ok {
			d, _ := toDur(L, 1)
			return pushTime(L, t.Add(d))
		}
		return addDur(L)
	})
	set(durMeta, "__sub", arith(func(a, b time.Duration) time.Duration { return a - b }))
	set(durMeta, "__mul", func(L *lua.LState) int {
		d, ok := toDur(L, 1)
		n := L.Get(2)
		if !ok {
			d, ok = toDur(L, 2)
			n = L.Get(1)
		}
		f, isNum := n.(lua.LNumber)
		if !ok || !isNum {
			L.RaiseError("duration * x: want a number")
		}
		return pushDur(L, time.Duration(float64(d)*float64(f)))
	})
	setCompare(durMeta, func(L *lua.LState) int {
		a, _ := toDur(L, 1)
		b, _ := toDur(L, 2)
		return cmp.Compare(a, b)
	})
	return timeMeta, durMeta
}
