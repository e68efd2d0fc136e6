package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/agentsh/agentsh/core"
)

// Values crossing between a script and Go are plain JSON shapes:
//
//	nil, bool, int64, float64, string, []any, map[string]any
//
// Bindings convert their interpreter values to and from these shapes, so no
// interpreter value ever crosses a goroutine or a language boundary.

// DecodeJSON decodes raw into JSON shapes. Integral numbers that fit in an
// int64 become int64; other numbers become float64.
func DecodeJSON(raw []byte) (any, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v) // for the error's detail
		if err == nil {
			err = fmt.Errorf("more than one value")
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return fromNumbers(v, "")
}

// fromNumbers replaces json.Numbers with int64 or float64; a number too
// large for a float64 is an error, not an infinity.
func fromNumbers(v any, path string) (any, error) {
	var err error
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &ValueError{Path: path, Msg: fmt.Sprintf("number %s is out of range", x)}
		}
		return f, nil
	case []any:
		for i := range x {
			if x[i], err = fromNumbers(x[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k := range x {
			if x[k], err = fromNumbers(x[k], fmt.Sprintf("%s[%q]", path, k)); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// EncodeJSON encodes a JSON shape compactly with sorted keys. It checks the
// value strictly and names the path of anything that is not JSON.
func EncodeJSON(v any) ([]byte, error) {
	if err := CheckValue(v, ""); err != nil {
		return nil, err
	}
	return core.MarshalJSON(v)
}

// CheckValue reports the first part of v that is not a JSON shape, with
// its path (for example args["items"][2]) prefixed by root.
func CheckValue(v any, root string) error {
	switch x := v.(type) {
	case nil, bool, int64, string:
		return nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return &ValueError{Path: root, Msg: fmt.Sprintf("%v is not a finite number and cannot be JSON", x)}
		}
		return nil
	case []any:
		for i, e := range x {
			if err := CheckValue(e, fmt.Sprintf("%s[%d]", root, i)); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := CheckValue(x[k], fmt.Sprintf("%s[%q]", root, k)); err != nil {
				return err
			}
		}
		return nil
	}
	return &ValueError{Path: root, Msg: describe(v) + " is not a JSON value"}
}

// ValueError is a conversion failure at a path inside a value.
type ValueError struct {
	Path string // such as args["items"][2]; "" for the value itself
	Msg  string
}

func (e *ValueError) Error() string {
	if e.Path == "" {
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
