package lua

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/script/starlark"
)

// TestJSONModule covers json.encode, encode_indent, decode (with a
// default), indent and null.
func TestJSONModule(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print(json.encode({b = 1, a = {true, json.null, 1.5, "<&>"}, c = {z = {}, y = agentsh.array{}}}))
print(json.encode("x"), json.encode(3), json.encode(nil), json.encode(json.null), json.encode({1, 2}))
local v = json.decode('{"i": 3, "f": 3.5, "big": 12345678901234, "neg": -7, "l": [1, {"k": "v"}], "n": null, "t": true}')
print(v.i, v.f, v.big, v.neg, v.l[2].k, v.n == json.null, v.t, #v.l)
print(json.decode("not json", "fallback"), json.decode("[", nil), json.decode('"s"', 1), json.decode("null"))
print(json.encode_indent({b = {1, 2}, a = {}}))
print(json.encode_indent({k = 1}, "> ", "  "))
print(json.indent('{"x":[1,{"y":2}]}', "", " "))
print(json.encode(json.decode(json.encode({round = {1, "trip", {ok = true}}}))))
print(json.null == agentsh.null, tostring(json.null))
`)
	wantLines(t, e.lines(),
		`{"a":[true,null,1.5,"<&>"],"b":1,"c":{"y":[],"z":{}}}`,
		"\"x\"\t3\tnull\tnull\t[1,2]",
		"3\t3.5\t12345678901234\t-7\tv\ttrue\ttrue\t2",
		"fallback\tnil\ts\tnil",
		"{",
		"\t\"a\": {},",
		"\t\"b\": [",
		"\t\t1,",
		"\t\t2",
		"\t]",
		"}",
		"{",
		`>   "k": 1`,
		"> }",
		"{",
		` "x": [`,
		`  1,`,
		`  {`,
		`   "y": 2`,
		`  }`,
		` ]`,
		"}",
		`{"round":[1,"trip",{"ok":true}]}`,
		"true\tnull",
	)
	for _, s := range []string{`[1]]`, `{}}`, `{"a": 1} }`, `1]`, `"s"}`, `1 2`} {
		e.out.Reset()
		e.run(`print(json.decode(` + q(s) + `, "REFUSED"))`)
		wantLines(t, e.lines(), "REFUSED")
	}
	for _, tc := range []struct{ src, want string }{
		{`json.decode("{")`, "json.decode: invalid JSON"},
		{`json.decode("1 2")`, "json.decode: invalid JSON"},
		{`json.decode({})`, "json.decode: x got a dict, want a string"},
		{`json.indent("{")`, "invalid JSON"},
		{`json.encode_indent({f = print})`, `json.encode_indent: ["f"]: cannot convert a function to JSON`},
		{`json.encode({[true] = 1})`, "json.encode: table key true is a boolean"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestReModule covers search, match, fullmatch, findall, sub, split,
// escape and match objects (byte offsets from 0, as in Go and Starlark).
func TestReModule(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local m = re.search([[(\w+)@(?P<host>\w+)\.com]], "mail ada@example.com now")
print(m:group(), m:group(0), m:group(1), m:group(2), m:group("host"))
print(json.encode(m:groups()), json.encode(m:groupdict()), m:span())
print(m:start(), m:start(1), m:start("host"), m:span(2))
print(tostring(m), type(m))
print(re.search("z", "abc"), re.match("b", "abc"), re.match("a", "abc"):group())
print(re.match("b*", "abc"):span())
print(re.fullmatch("a|ab", "ab"):group(), re.fullmatch("a", "ab"), re.fullmatch("(?i)ABC", "abc"):group())
local o = re.search("(a)|(b)", "b")
print(json.encode(o:groups()), json.encode(o:groups("-")), o:span(1), o:group(1), json.encode(o:groupdict()))
print(json.encode(re.search("(?P<x>a)|(?P<y>b)", "b"):groupdict()))
print(json.encode(re.findall([[\d+]], "a1 b22 c333")))
print(json.encode(re.findall([[(\w)=\d]], "a=1 b=2")))
print(json.encode(re.findall([[(\w)=(\d)?]], "a=1 b=")))
print(json.encode(re.findall("x", "abc")))
print(re.sub([[(\w+)@(\w+)]], "$2 at ${1}", "ada@home bob@work"))
print(re.sub("a", "X", "banana", 2), re.sub("a", "X", "banana"), re.sub("a", "X", "banana", 0))
print(re.sub("(?P<w>o+)", "<${w}>", "foo boo"))
print(json.encode(re.split([[\s*,\s*]], "a , b,c ,d")), json.encode(re.split(",", "a,b,c", 1)), json.encode(re.split("(,)", "a,b")))
print(re.escape("a.b*c(d)"), re.search(re.escape("1+1=2"), "is 1+1=2?"):group())
print(re.search("é", "café"):span())
`)
	wantLines(t, e.lines(),
		"ada@example.com\tada@example.com\tada\texample\texample",
		`["ada","example"]`+"\t"+`{"host":"example"}`+"\t5\t20",
		"5\t5\t9\t9\t16",
		"<match \"ada@example.com\">\tuserdata",
		"nil\tnil\ta",
		"0\t0",
		"ab\tnil\tabc",
		`[null,"b"]`+"\t"+`["-","b"]`+"\t-1\tnil\t{}",
		`{"x":null,"y":"b"}`,
		`["1","22","333"]`,
		`["a","b"]`,
		`[["a","1"],["b",""]]`,
		"[]",
		"home at ada work at bob",
		"bXnXna\tbXnXnX\tbXnXnX",
		"f<oo> b<oo>",
		`["a","b","c","d"]`+"\t"+`["a","b,c"]`+"\t"+`["a","b"]`,
		`a\.b\*c\(d\)`+"\t1+1=2",
		"3\t5",
	)
	for _, tc := range []struct{ src, want string }{
		{`re.search("(a", "b")`, `re.search: invalid pattern "(a"`},
		{`re.match("(a", "b")`, "re.match: invalid pattern"},
		{`re.findall("a(?=b)", "ab")`, "re.findall: invalid pattern"},
		{`re.sub("(", "", "")`, "re.sub: invalid pattern"},
		{`re.split("[", "")`, "re.split: invalid pattern"},
		{`re.fullmatch("(", "")`, "re.fullmatch: invalid pattern"},
		{`re.match("(a)", "a"):group(2)`, "group: no such group 2 (the pattern has 1)"},
		{`re.match("(a)", "a"):group("name")`, `group: no such group "name" (the pattern has 1)`},
		{`re.match("(a)", "a"):group(0.5)`, "group: no such group 0.5"},
		{`re.match("(a)", "a"):span(-1)`, "span: no such group -1"},
		{`re.match("a", "a"):start(1)`, "start: no such group 1 (the pattern has 0)"},
		{`re.search("a")`, `re.search: missing argument "string"`},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestTimeModule covers now (with Options.Now), from_timestamp,
// parse_time, parse_duration, the fields, format, arithmetic,
// comparisons, and tostring as Go's String().
func TestTimeModule(t *testing.T) {
	fixed := time.Date(2024, 2, 29, 12, 30, 45, 123456789, time.UTC)
	e := newEnv(t, Options{Now: func() time.Time { return fixed }})
	e.run(`
local now = time.now()
print(now.unix, now.year, now.month, now.day, now.hour, now.minute, now.second, now.nanosecond, time.from_timestamp(1700000000).unix_nano)
print(now == time.now(), tostring(now), type(now))
print(now:format("2006-01-02T15:04:05Z07:00"), now.format(now, "Jan 2"))
local d = time.parse_duration("1m30s")
print(tostring(d), d.seconds, d.minutes, d.milliseconds, d.microseconds, d.nanoseconds, time.hour.hours)
print(tostring(time.second * 2), tostring(3 * time.millisecond), tostring(time.second * 1.5))
print(tostring(d + time.second), tostring(d - time.minute), tostring(time.nanosecond), tostring(time.microsecond))
local later = now + time.hour
print(tostring(later), tostring(time.minute + now), tostring(later - now), tostring(later - time.hour))
print(later > now, now < later, now <= now, now >= later, later == now + time.hour, now ~= later)
print(time.second < time.minute, time.minute <= time.minute, time.hour > time.minute, d == time.parse_duration("90s"))
local p = time.parse_time("2023-11-14T22:13:20Z")
print(p.unix, tostring(p))
print(tostring(time.parse_time("14/11/2023", "02/01/2006")), tostring(time.parse_time("2023-11-14 10:00", "2006-01-02 15:04", "America/New_York")))
print(time.from_timestamp(1700000000).unix, time.from_timestamp(1700000000, 5).nanosecond)
tool{name = "clock", fn = function() return tostring(time.now().unix) end}
print(invoke_tool("clock").output)
`)
	wantLines(t, e.lines(),
		"1709209845\t2024\t2\t29\t12\t30\t45\t123456789\t1700000000000000000",
		"true\t"+fixed.String()+"\tuserdata",
		"2024-02-29T12:30:45Z\tFeb 29",
		"1m30s\t90\t1.5\t90000\t90000000\t90000000000\t1",
		"2s\t3ms\t1.5s",
		"1m31s\t30s\t1ns\t1µs",
		fixed.Add(time.Hour).String()+"\t"+fixed.Add(time.Minute).String()+"\t1h0m0s\t"+fixed.String(),
		"true\ttrue\ttrue\tfalse\ttrue\ttrue",
		"true\ttrue\ttrue\ttrue",
		"1700000000\t2023-11-14 22:13:20 +0000 UTC",
		"2023-11-14 00:00:00 +0000 UTC\t2023-11-14 10:00:00 -0500 EST",
		"1700000000\t5",
		"1709209845",
	)
	// from_timestamp is in the local zone, as Go's time.Unix.
	e.out.Reset()
	e.run(`print(tostring(time.from_timestamp(1700000000)))`)
	wantLines(t, e.lines(), time.Unix(1700000000, 0).String())

	for _, tc := range []struct{ src, want string }{
		{`time.parse_duration("soon")`, `time.parse_duration: time: invalid duration "soon"`},
		{`time.parse_time("yesterday")`, "time.parse_time: parsing time"},
		{`time.parse_time("2023-11-14T22:13:20Z", nil, "Mars/Olympus")`, "time.parse_time: unknown time zone Mars/Olympus"},
		{`print(time.now().weekday)`, `time has no field "weekday"`},
		{`print(time.second.days)`, `duration has no field "days"`},
		{`print(time.now() + 1)`, "unknown binary op: time.time + number"},
		{`print(time.now() - 1)`, "unknown binary op: time.time - number"},
		{`print(time.second + 1)`, "unknown binary op: time.duration + number"},
		{`print(time.second * "x")`, "unknown binary op: time.duration * string"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}

	// Without Options.Now the real clock is used.
	e2 := newEnv(t, Options{})
	e2.run(`print(time.now().year >= 2024, math.abs(time.now().unix - os.time()) <= 1)`)
	wantLines(t, e2.lines(), "true\ttrue")
}

// TestStateModule covers state.get (with a default), set, incr, delete and
// keys, and that Lua and Starlark share the store.
func TestStateModule(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print(state.get("missing"), state.get("missing", 5), json.encode(state.keys()))
local v = {list = {1, 2}, s = "v"}
state.set("k", v)
v.list[3] = 3                       -- the store keeps a copy
local got = state.get("k")
got.list[4] = 4                     -- and hands out copies
print(json.encode(state.get("k")))
print(state.incr("n"), state.incr("n", 5), state.incr("n", -10))
state.set("none", nil)
print(state.get("none", "default"))
state.set("empty", agentsh.array{})
print(json.encode(state.get("empty")))
print(json.encode(state.keys()))
state.delete("k")
state.delete("never-set")
print(json.encode(state.keys()))
`)
	wantLines(t, e.lines(),
		"nil\t5\t[]",
		`{"list":[1,2],"s":"v"}`,
		"1\t6\t-4",
		"default",
		"[]",
		`["empty","k","n","none"]`,
		`["empty","n","none"]`,
	)
	err := e.runErr("state.set(\"str\", \"text\")\nstate.incr(\"str\")")
	wantContains(t, err.Error(), "test.lua:2", `state.incr: "str" holds a string, want an int`)
	e.out.Reset()
	e.run(`print(state.get("str"))`)
	wantLines(t, e.lines(), "text")
	wantContains(t, e.runErr(`state.incr("x", 1.5)`).Error(), "state.incr: n must be an integer, got 1.5")
	wantContains(t, e.runErr(`state.incr("x", 2^60)`).Error(), "state.incr: n must be an integer")
	wantContains(t, e.runErr(`state.set("f", print)`).Error(), `state.set: state["f"]: cannot convert a function to JSON`)

	// One store for both languages.
	st := starlark.New(e.host, starlark.Options{})
	if _, err := st.ExecSource(context.Background(), "test.star", []byte(`
state.set("from_star", {"langs": ["star"]})
state.incr("n", 100)
`)); err != nil {
		t.Fatal(err)
	}
	e.out.Reset()
	e.run(`print(state.get("from_star").langs[1], state.get("n"))`)
	wantLines(t, e.lines(), "star\t96")
}

// TestTimeNowHasNoMonotonicReading: tostring(time.now()) on the real clock
// reads as in Starlark, without Go's "m=+0.0001" suffix.
func TestTimeNowHasNoMonotonicReading(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`print(tostring(time.now()))`)
	got := e.lines()
	if len(got) != 1 || strings.Contains(got[0], "m=") || !strings.Contains(got[0], " UTC") && !strings.Contains(got[0], " +") && !strings.Contains(got[0], " -") {
		t.Errorf("tostring(time.now()) = %q, want a time without a monotonic reading", got)
	}
}
