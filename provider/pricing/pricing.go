// Package pricing prices token usage: a table of prices in US dollars per
// million tokens (input, output, cache read, cache write) by model, for the
// cost of a reply and the cost budget (--max-cost).
//
// The built-in table (prices.json, embedded) holds the providers' list
// prices for common current models as of its as_of date; where a provider
// prices by tier (a long-context surcharge, batch discounts, a cache kept
// for an hour), the table holds the standard tier. A user overrides or
// extends it with a file of the same shape, --prices FILE:
//
//	{"as_of": "2025-11-24", "models": {
//	    "gpt-4o": {"input": 2.50, "output": 10.00, "cache_read": 1.25, "cache_write": 2.50},
//	    "ollama:*": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}}}
//
// Every entry gives all four prices; its key replaces the built-in entry of
// the same key (see Table.Merge).
//
// # Matching
//
// A model is named as in --model, KIND:MODEL ("anthropic:claude-sonnet-4-5"),
// and is matched exactly, never by likeness. The first of these that the
// table holds prices it:
//
//  1. the whole name, KIND:MODEL;
//  2. MODEL alone;
//  3. the same two with a snapshot suffix removed from MODEL
//     (provider.ModelBase: -20250929, -2024-08-06, -0613 or -latest), so
//     "claude-sonnet-4-5-20250929" is priced as "claude-sonnet-4-5" and
//     "gpt-4o-2024-08-06" as "gpt-4o";
//  4. a key ending in "*" that the whole name starts with (the longest such
//     key first), then one that MODEL starts with: "ollama:*" prices every
//     model of ollama.
//
// The built-in table has no "*" keys. A model no step matches has no price:
// its usage is reported without a cost (Cost returns ok false), never with a
// guess.
//
// Tables are immutable; they are safe for concurrent use.
package pricing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/agentsh/agentsh/internal/userfile"
	"github.com/agentsh/agentsh/provider"
)

// The built-in prices: list prices as of the file's as_of date. Override
// them with --prices FILE (see the package doc), not by editing the file.
//
//go:embed prices.json
var builtinJSON []byte

// Price is what a model charges, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Cost is what u costs at p, in US dollars.
func (p Price) Cost(u provider.Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// Table is a price table. The zero Table prices nothing.
type Table struct {
	asOf   string
	models map[string]Price
	// prefixes are the keys ending in "*", without it, longest first.
	prefixes []string
	// read, when set, returns the table this one stands for: Builtin's,
	// read on first use.
	read func() *Table
}

// get returns the table t stands for.
func (t *Table) get() *Table {
	if t != nil && t.read != nil {
		return t.read()
	}
	return t
}

// MaxFileSize bounds a price file.
const MaxFileSize = 1 << 20

// maxPrice bounds a price per million tokens, so that no sum overflows.
const maxPrice = 1e6

var builtin = sync.OnceValue(func() *Table {
	t, err := Parse("prices.json", builtinJSON)
	if err != nil {
		panic("pricing: the built-in table: " + err.Error())
	}
	return t
})

// Builtin returns the built-in table. It is read on its first use, not
// when a program starts: most runs never price a call.
func Builtin() *Table { return builtinTable }

var builtinTable = &Table{read: builtin}

// Load reads a price file and returns the built-in table with the file's
// entries merged over it. Errors name the file and what is wrong in it;
// a path that is not a regular file (a FIFO, a device) or a file larger
// than MaxFileSize is refused without waiting or reading it all.
func Load(path string) (*Table, error) {
	data, err := userfile.Read(path, MaxFileSize)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("price file %s: %w", path, pe.Err)
		}
		return nil, fmt.Errorf("price file %w; a price table is a JSON file of a few kilobytes", err)
	}
	t, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return Builtin().Merge(t), nil
}

// Parse reads a price table from data; name is the file's, for errors.
// It is strict: unknown keys, a missing price, a price that is not a
// number from 0 to 1000000, a duplicated model and a malformed key are
// errors that say so.
func Parse(name string, data []byte) (*Table, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("price file %s: %s", name, fmt.Sprintf(format, args...))
	}
	var top struct {
		AsOf   *string         `json:"as_of"`
		Models json.RawMessage `json:"models"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		return nil, fail("%s; want {\"as_of\": \"YYYY-MM-DD\", \"models\": {\"MODEL\": {\"input\": USD, \"output\": USD, \"cache_read\": USD, \"cache_write\": USD}}} (US dollars per million tokens)", jsonError(data, err))
	}
	if dec.More() {
		return nil, fail("more than one JSON value; want one object")
	}
	if len(top.Models) == 0 || string(top.Models) == "null" {
		return nil, fail(`no "models": want {"models": {"MODEL": {"input": USD, "output": USD, "cache_read": USD, "cache_write": USD}}}`)
	}
	t := &Table{models: map[string]Price{}}
	if top.AsOf != nil {
		t.asOf = *top.AsOf
	}
	keys, raws, err := objectMembers(top.Models)
	if err != nil {
		return nil, fail("models: %s", jsonError(nil, err))
	}
	for i, key := range keys {
		if err := checkKey(key); err != nil {
			return nil, fail("models: key %q: %v", key, err)
		}
		if _, dup := t.models[key]; dup {
			return nil, fail("models: %q appears twice; keep one entry", key)
		}
		p, err := parsePrice(raws[i])
		if err != nil {
			return nil, fail("models.%q: %v", key, err)
		}
		t.models[key] = p
	}
	t.index()
	return t, nil
}

func parsePrice(raw json.RawMessage) (Price, error) {
	var in struct {
		Input      *float64 `json:"input"`
		Output     *float64 `json:"output"`
		CacheRead  *float64 `json:"cache_read"`
		CacheWrite *float64 `json:"cache_write"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Price{}, fmt.Errorf("%s; want {\"input\": USD, \"output\": USD, \"cache_read\": USD, \"cache_write\": USD}", jsonError(nil, err))
	}
	fields := []struct {
		name string
		v    *float64
	}{{"input", in.Input}, {"output", in.Output}, {"cache_read", in.CacheRead}, {"cache_write", in.CacheWrite}}
	for _, f := range fields {
		if f.v == nil {
			return Price{}, fmt.Errorf("missing %s; give input, output, cache_read and cache_write in US dollars per million tokens (0 for none)", f.name)
		}
		if *f.v < 0 || *f.v > maxPrice || math.IsNaN(*f.v) {
			return Price{}, fmt.Errorf("%s is %v; want US dollars per million tokens, from 0 to %g", f.name, *f.v, float64(maxPrice))
		}
	}
	return Price{Input: *in.Input, Output: *in.Output, CacheRead: *in.CacheRead, CacheWrite: *in.CacheWrite}, nil
}

// objectMembers returns the keys and values of a JSON object in order,
// duplicates included (encoding/json would keep the last silently).
func objectMembers(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("got %s, want an object of models", describeToken(tok))
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "a list"
		}
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// jsonError renders a decoding error, with the line it is on when data
// is the whole file.
func jsonError(data []byte, err error) string {
	at := func(off int64) string {
		if data == nil {
			return ""
		}
		return fmt.Sprintf("line %d: ", lineOf(data, off))
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s%v", at(se.Offset), se)
	case errors.As(err, &te):
		what := te.Field
		if what == "" {
			what = "the value"
		}
		return fmt.Sprintf("%s%s is %s, want %s", at(te.Offset), what, te.Value, jsonKind(te.Type.Kind().String()))
	case errors.Is(err, io.EOF):
		return "empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "float64", "ptr":
		return "a number"
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	}
	return goKind
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

func checkKey(key string) error {
	switch {
	case key == "":
		return errors.New("empty; name a model, such as \"gpt-4o\" or \"anthropic:claude-sonnet-4-5\"")
	case len(key) > 256:
		return errors.New("longer than 256 bytes")
	case strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return errors.New("has spaces or control characters")
	case strings.Contains(strings.TrimSuffix(key, "*"), "*"):
		return errors.New(`"*" may only end a key (a prefix, such as "ollama:*")`)
	}
	return nil
}

// index sorts the prefix keys, longest first (then by name, so the order
// is deterministic).
func (t *Table) index() {
	t.prefixes = t.prefixes[:0]
	for k := range t.models {
		if strings.HasSuffix(k, "*") {
			t.prefixes = append(t.prefixes, strings.TrimSuffix(k, "*"))
		}
	}
	sort.Slice(t.prefixes, func(i, j int) bool {
		a, b := t.prefixes[i], t.prefixes[j]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
}

// AsOf is the date the table's prices are as of ("" when not given).
func (t *Table) AsOf() string { return t.get().asOf }

// Models lists the table's keys, sorted.
func (t *Table) Models() []string {
	t = t.get()
	out := make([]string, 0, len(t.models))
	for k := range t.models {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Merge returns a table with over's entries over t's: an entry of over
// replaces t's entry of the same key; over's as_of wins when set.
func (t *Table) Merge(over *Table) *Table {
	t, over = t.get(), over.get()
	m := &Table{asOf: t.asOf, models: make(map[string]Price, len(t.models)+len(over.models))}
	for k, p := range t.models {
		m.models[k] = p
	}
	for k, p := range over.models {
		m.models[k] = p
	}
	if over.asOf != "" {
		m.asOf = over.asOf
	}
	m.index()
	return m
}

// Lookup finds the price of model, named KIND:MODEL or MODEL, by the rules
// of the package doc; key is the table entry that matched.
func (t *Table) Lookup(model string) (p Price, key string, ok bool) {
	t = t.get()
	if t == nil || len(t.models) == 0 || model == "" {
		return Price{}, "", false
	}
	kind, name, qualified := strings.Cut(model, ":")
	if !qualified {
		kind, name = "", model
	}
	if p, key, ok := t.exact(kind, model, name); ok {
		return p, key, true
	}
	if base := provider.ModelBase(name); base != name && base != "" {
		if p, key, ok := t.exact(kind, kind+":"+base, base); ok {
			return p, key, true
		}
	}
	// Prefix keys: those with a kind against the whole name first.
	for _, pass := range []struct {
		s         string
		qualified bool
	}{{model, true}, {name, false}} {
		if pass.qualified && !qualified {
			continue
		}
		for _, pre := range t.prefixes {
			if strings.Contains(pre, ":") == pass.qualified && strings.HasPrefix(pass.s, pre) {
				return t.models[pre+"*"], pre + "*", true
			}
		}
	}
	return Price{}, "", false
}

// exact looks up KIND:NAME (whole), then NAME.
func (t *Table) exact(kind, whole, name string) (Price, string, bool) {
	if kind != "" {
		if p, ok := t.models[whole]; ok {
			return p, whole, true
		}
	}
	if p, ok := t.models[name]; ok {
		return p, name, true
	}
	return Price{}, "", false
}

// Cost is what u cost on model (see Lookup), in US dollars; ok is false
// when the table has no price for the model.
func (t *Table) Cost(model string, u provider.Usage) (usd float64, ok bool) {
	p, _, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}
