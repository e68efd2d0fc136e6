package script

import "strings"

// Spelling is how a language writes the literals of a host value's
// rendering, so that tostring(result) in Lua reads as Lua and str(result)
// in Starlark as Starlark.
type Spelling struct {
	True, False string
	// Open, Assign and Close surround a record's fields and join each
	// field's name to its value.
	Open, Assign, Close string
}

// The spellings of the bindings: a call with keywords, as Starlark and
// Python write it, and a table constructor, as Lua does.
var (
	CallSpelling  = Spelling{True: "True", False: "False", Open: "(", Assign: "=", Close: ")"}
	TableSpelling = Spelling{True: "true", False: "false", Open: "{", Assign: " = ", Close: "}"}
)

// Speller is an Object whose rendering follows the spelling of the
// language that shows it; its String is its CallSpelling.
type Speller interface {
	Object
	Spell(Spelling) string
}

// record renders name and its fields, given as name, value pairs of
// rendered text.
func (sp Spelling) record(name string, fields ...string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteString(sp.Open)
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fields[i])
		b.WriteString(sp.Assign)
		b.WriteString(fields[i+1])
	}
	b.WriteString(sp.Close)
	return b.String()
}

var (
	_ Speller = (*CallInfo)(nil)
	_ Speller = (*ResultInfo)(nil)
)
