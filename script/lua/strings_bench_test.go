package lua

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The string benchmarks run the same Lua loop on gopher-lua's string
// functions and on agentsh's.
const (
	benchFind = `
local line = "2024-01-02 12:34:56 INFO user=ada action=login ok"
local n = 0
for i = 1, 1000 do
  local a, b, user = string.find(line, "user=(%w+)")
  if string.match(line, "^(%d+)-(%d+)-(%d+)") then n = n + 1 end
  if string.find(line, "login", 1, true) then n = n + 1 end
end
`
	benchGsub = `
local text = string.rep("the quick brown fox jumps over the lazy dog ", 20)
for i = 1, 100 do
  local s = string.gsub(text, "%w+", "<%0>")
  s = string.gsub(text, "(o)(%w)", "%2%1")
  for w in string.gmatch(text, "%a+") do end
end
`
)

func benchStrings(b *testing.B, src string, ours bool) {
	L := lua.NewState()
	defer L.Close()
	if ours {
		installPatterns(L)
	}
	fn, err := L.LoadString(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStringFind: 1000 rounds of find with a capture, an anchored
// match with three captures, and a plain find.
func BenchmarkStringFind(b *testing.B) {
	b.Run("gopher-lua", func(b *testing.B) { benchStrings(b, benchFind, false) })
	b.Run("agentsh", func(b *testing.B) { benchStrings(b, benchFind, true) })
}

// BenchmarkStringGsub: 100 rounds of two gsubs and a gmatch over 900
// bytes of text.
func BenchmarkStringGsub(b *testing.B) {
	b.Run("gopher-lua", func(b *testing.B) { benchStrings(b, benchGsub, false) })
	b.Run("agentsh", func(b *testing.B) { benchStrings(b, benchGsub, true) })
}
