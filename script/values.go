package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/agentsh/agentsh/core"
)

// Values crossing between a script and Go are plain JSON shapes:
//
//	nil, bool, int64, float64, string, []any, map[string]any
//
// Bindings convert their interpreter values to and from these shapes, so no
// interpreter value ever crosses a goroutine or a language boundary.

// DecodeJSON decodes raw into JSON shapes. Integral numbers that fit in an
// int64 become int64; other numbers become float64. A value nested deeper
// than MaxDepth is an error.
func DecodeJSON(raw []byte) (any, error) { return decodeJSON(raw, "") }

// decodeJSON is DecodeJSON with errors' paths starting at root.
func decodeJSON(raw []byte, root string) (any, error) {
	return DecodeAs[any](raw, root, Shapes{})
}

// decodeJSONReference is decodeJSON by way of encoding/json: it defines
// what DecodeJSON accepts, the values it makes and the words of its
// errors, which DecodeAs's scanner matches (see TestDecodeAsMatchesReference).
func decodeJSONReference(raw []byte, root string) (any, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v) // for the error's detail
		if err == nil {
			err = fmt.Errorf("more than one value")
		}
		return nil, syntaxError(err, root)
	}
	return decodeValid(raw, root)
}

// decodeValid is decodeJSON for text that json.Valid accepted.
func decodeValid(raw []byte, root string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(err, root)
	}
	w := NewWalk(root)
	defer w.Done()
	return fromNumbers(w, v)
}

// syntaxError describes why JSON text did not decode.
func syntaxError(err error, root string) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && strings.Contains(se.Error(), "exceeded max depth") {
		// encoding/json stops at 10000 levels, far beyond MaxDepth.
		return &ValueError{Path: root, Msg: fmt.Sprintf("value is nested deeper than %d levels", MaxDepth)}
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// fromNumbers replaces json.Numbers with int64 or float64; a number too
// large for a float64 is an error, not an infinity.
func fromNumbers(w *Walk, v any) (any, error) {
	var err error
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, w.Errorf("number %s is out of range", shorten(string(x), 40))
		}
		return f, nil
	case []any:
		// A decoded value shares nothing, so it has no identity to check.
		if err := w.Enter(nil); err != nil {
			return nil, err
		}
		for i := range x {
			w.Index(i)
			if x[i], err = fromNumbers(w, x[i]); err != nil {
				return nil, err
			}
		}
		w.Leave()
	case map[string]any:
		if err := w.Enter(nil); err != nil {
			return nil, err
		}
		for k := range x {
			w.Key(k)
			if x[k], err = fromNumbers(w, x[k]); err != nil {
				return nil, err
			}
		}
		w.Leave()
	}
	return v, nil
}

// EncodeJSON encodes a JSON shape compactly with sorted keys. It checks the
// value strictly and names the path of anything that is not JSON.
func EncodeJSON(v any) ([]byte, error) { return encodeJSON(v, "") }

// encodeJSON is EncodeJSON with errors' paths starting at root.
func encodeJSON(v any, root string) ([]byte, error) {
	if err := CheckValue(v, root); err != nil {
		return nil, err
	}
	return core.MarshalJSON(v)
}

// CheckValue reports the first part of v that is not a JSON shape, with
// its path (for example args["items"][2]) prefixed by root. A value nested
// deeper than MaxDepth, or one that contains itself, is an error too.
func CheckValue(v any, root string) error {
	w := NewWalk(root)
	defer w.Done()
	return checkValue(w, v)
}

func checkValue(w *Walk, v any) error {
	switch x := v.(type) {
	case nil, bool, int64, string:
		return nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return w.Errorf("%v is not a finite number and cannot be JSON", x)
		}
		return nil
	case []any:
		if err := w.Enter(SliceID(x)); err != nil {
			return err
		}
		for i, e := range x {
			w.Index(i)
			if err := checkValue(w, e); err != nil {
				return err
			}
		}
		w.Leave()
		return nil
	case map[string]any:
		if err := w.Enter(MapID(x)); err != nil {
			return err
		}
		for _, k := range SortedKeys(x) {
			w.Key(k)
			if err := checkValue(w, x[k]); err != nil {
				return err
			}
		}
		w.Leave()
		return nil
	}
	switch v.(type) {
	case Object, Func:
		return w.Errorf("cannot convert %s to JSON", describe(v))
	}
	return w.Errorf("%s is not a JSON value", describe(v))
}

// SliceID and MapID are the identities of Go containers for Walk.Enter.
// An empty slice holds nothing, so it has none.
func SliceID(s []any) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}

// MapID: see SliceID.
func MapID(m map[string]any) unsafe.Pointer {
	if len(m) == 0 {
		return nil
	}
	return reflect.ValueOf(m).UnsafePointer()
}

// SortedKeys returns m's keys in sorted order.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ValueError is a conversion failure at a path inside a value.
type ValueError struct {
	Path string // such as args["items"][2]; "" for the value itself
	Msg  string
	// inline: Msg reads after "value at PATH", as in "contains itself".
	inline bool
}

func (e *ValueError) Error() string {
	switch {
	case e.inline:
		return "value at " + e.Path + " " + e.Msg
	case e.Path == "":
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Quote renders a JSON shape in the canonical text form used by
// transcripts: JSON with sorted keys.
func Quote(v any) string {
	b, err := EncodeJSON(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
