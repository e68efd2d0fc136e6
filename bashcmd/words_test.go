package bashcmd

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestLiteral(t *testing.T) {
	tests := map[string]struct {
		val string
		ok  bool
	}{
		`rm`:              {"rm", true},
		`\rm`:             {"rm", true},
		`r\m`:             {"rm", true},
		`"r\m"`:           {`r\m`, true},
		`"r\$m"`:          {`r$m`, true},
		`'r\m'`:           {`r\m`, true},
		`"rm"'x'y`:        {"rmxy", true},
		`[`:               {"[", true},
		`-I{}`:            {"-I{}", true},
		`~/x`:             {"~/x", true},
		`~`:               {"", false},
		`~root`:           {"", false},
		`r*`:              {"", false},
		`"r*"`:            {"r*", true},
		`a{b,c}`:          {"", false},
		`a{1..3}`:         {"", false},
		`a\{b,c}`:         {"a{b,c}", true},
		`$x`:              {"", false},
		`"$x"`:            {"", false},
		`$(echo x)`:       {"", false},
		`$'a'`:            {"a", true},
		`$'\n'`:           {"", false},
		`@(a|b)`:          {"", false},
		`/r["m"]`:         {"", false},
		`"r"[m]`:          {"", false},
		`"a[b]"`:          {"a[b]", true},
		`"{a,b}"`:         {"{a,b}", true},
		`x"y"\ z`:         {"xy z", true},
		`"a\"b\\c"`:       {`a"b\c`, true},
		`'$(rm x)'`:       {"$(rm x)", true},
		`"\` + "`" + `x"`: {"`x", true},
	}
	for src, want := range tests {
		f, err := parse(src)
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		w := firstWord(f)
		if w == nil {
			t.Fatalf("%q: no word", src)
		}
		got, ok := literal(w)
		if got != want.val || ok != want.ok {
			t.Errorf("literal(%s) = %q, %v; want %q, %v", src, got, ok, want.val, want.ok)
		}
	}
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// firstWord is the first word of the first simple command in f.
func firstWord(f *syntax.File) *syntax.Word {
	var w *syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && w == nil && len(call.Args) > 0 {
			w = call.Args[0]
		}
		return w == nil
	})
	return w
}

func TestScriptSource(t *testing.T) {
	tests := map[string]source{
		"script.sh":                      fromFile,
		"./sub/x.sh":                     fromFile,
		"/work/x.sh":                     fromFile,
		"../x.sh":                        fromFile,
		"/dev/stdin":                     fromStdin,
		"/dev//stdin":                    fromStdin,
		"/dev/./stdin":                   fromStdin,
		"//dev/stdin":                    fromStdin,
		"/dev/fd/0":                      fromStdin,
		"/proc/self/fd/0":                fromStdin,
		"/proc/thread-self/fd/0":         fromStdin,
		"/proc/self/root/dev/stdin":      fromStdin,
		"/proc/1/root/dev/stdin":         fromStdin,
		"/proc/self/root/proc/self/fd/0": fromStdin,
		"dev/stdin":                      fromStdin,
		"/proc/self/../self/fd/0":        fromDevice,
		"/dev/fd/../fd/0":                fromDevice,
		"../../../../dev/stdin":          fromDevice,
		"/tmp/../dev/stdin":              fromDevice,
		"/dev/fd/3":                      fromDevice,
		"/dev/fd/00":                     fromDevice,
		"/proc/self/fd/3":                fromDevice,
		"/proc/123/fd/0":                 fromDevice,
		"/proc/self/cwd/x.sh":            fromDevice,
		"/dev/tty":                       fromDevice,
		"/dev":                           fromDevice,
		"proc/self/fd/0":                 fromStdin,
	}
	for p, want := range tests {
		if got := scriptSource(p); got != want {
			t.Errorf("scriptSource(%q) = %d, want %d", p, got, want)
		}
	}
}

func TestNumericText(t *testing.T) {
	for text, want := range map[string]bool{
		"": true, "0": true, "42": true, "-3": true, "+3": true, "0x1F": true, "2#101": true, "36#zz": true,
		"{1..9}": true, "{-3..3..2}": true,
		"x": false, "a1": false, "_": false, "-": false, "1+2": false, "a[1]": false, " 1": false, "1 ": false,
		"{a..z}": false, "{1,2}": false, "$x": false,
	} {
		if got := numericText(text); got != want {
			t.Errorf("numericText(%q) = %v, want %v", text, got, want)
		}
	}
}
