package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// Result is the outcome of one call. It travels through the pipeline as a
// struct; presentation choices (dual output, silence, blocks, artifacts) are
// fields, never markers inside strings.
type Result struct {
	CallID string
	Tool   string
	// Agent and ParentAgent are the call's (see Call.Agent): which agent's
	// call the result and its decision records belong to.
	Agent, ParentAgent string
	// ForLLM is what the model sees.
	ForLLM string
	// ForUser is what a person sees; empty means the same as ForLLM.
	ForUser string
	// Silent suppresses display to a person; the model still sees ForLLM.
	Silent bool
	// Streamed says the tool wrote its output to the stream its caller
	// asked for (see WithOutputStream) instead of returning it: ForLLM,
	// ForUser and Data are empty, and a person has seen the output.
	Streamed bool
	// Blocks are multimodal parts (images, ...) for providers that take them.
	Blocks []Block
	// Artifact is set when the output was offloaded to an ArtifactStore; then
	// ForLLM holds a reference, the size and a preview.
	Artifact *ArtifactRef
	// Data is the outcome as structured data for scripts and programs
	// (matches, paths, counts, an exit code, ...), next to the text the
	// model reads: nil, or plain JSON shapes (nil, bool, int64, float64,
	// string, []any, map[string]any). See SetData. A failed call may carry
	// data too (a command's exit code and output).
	Data any
	// Err is nil on success, otherwise a *Error (see Kind).
	Err      error
	Duration time.Duration
	// Decisions is the call's decision trail, in order: every before hook
	// (and the ones a deny skipped), the approval step, validation, and the
	// after hooks that have run so far.
	Decisions []Decision
}

// OK reports whether the call succeeded.
func (r *Result) OK() bool { return r.Err == nil }

// Kind returns the error kind, or "" on success.
func (r *Result) Kind() Kind { return KindOf(r.Err) }

// Display returns what a person sees: ForUser, or ForLLM when ForUser is
// empty. It ignores Silent; callers decide whether to show anything.
func (r *Result) Display() string {
	if r.ForUser != "" {
		return r.ForUser
	}
	return r.ForLLM
}

// Block is one multimodal part of a result.
type Block struct {
	Type     string `json:"type"`                // "image", "text", ...
	MIMEType string `json:"mime_type,omitempty"` // "image/png", ...
	Data     []byte `json:"data,omitempty"`      // raw bytes (base64 in JSON)
	Text     string `json:"text,omitempty"`
}

// DualToolOutput separates compact model-facing content from richer
// person-facing output.
type DualToolOutput struct {
	ForLLM  string
	ForUser string
}

// SilentResult is shown to the model only; nothing is displayed to a person.
type SilentResult struct {
	ForLLM string
}

// BlockCarrier is implemented by outputs that carry multimodal blocks. If
// the value also implements fmt.Stringer, String() becomes ForLLM.
type BlockCarrier interface {
	ToolBlocks() []Block
}

// BlockOutput is a ready-made BlockCarrier: text for the model plus blocks.
type BlockOutput struct {
	Text   string
	Blocks []Block
}

func (b BlockOutput) ToolBlocks() []Block { return b.Blocks }
func (b BlockOutput) String() string      { return b.Text }

var _ BlockCarrier = BlockOutput{}

// DataCarrier is implemented by outputs, and by errors, that carry
// structured data for scripts and programs besides their text. The
// executor sets Result.Data from it, for a failed call too (the error is
// found with errors.As).
type DataCarrier interface {
	ToolData() any
}

// DataOutput is a ready-made DataCarrier: text for the model plus
// structured data.
type DataOutput struct {
	Text string
	Data any
}

func (d DataOutput) ToolData() any  { return d.Data }
func (d DataOutput) String() string { return d.Text }

var _ DataCarrier = DataOutput{}

// SetOutput maps a ToolFunc's return value into r:
//
//	string, []byte      → ForLLM
//	json.RawMessage     → ForLLM, unchanged
//	DualToolOutput      → ForLLM and ForUser
//	SilentResult        → ForLLM, Silent
//	DataOutput          → ForLLM and Data
//	BlockCarrier        → Blocks, and ForLLM from String() if it has one
//	DataCarrier         → Data, and ForLLM from String() if it has one
//	StreamedOutput      → Streamed, no output (see WithOutputStream)
//	nil, nil pointers   → empty output
//	anything else       → ForLLM as JSON (map keys sorted)
//
// Pointers to DualToolOutput, SilentResult and DataOutput are accepted
// too. Any value that is also a DataCarrier sets Data (see SetData).
func (r *Result) SetOutput(v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		v = nil // a typed nil pointer is no output, not a crash
	}
	switch o := v.(type) {
	case nil:
	case string:
		r.ForLLM = o
	case json.RawMessage:
		r.ForLLM = string(o)
	case []byte:
		r.ForLLM = string(o)
	case DualToolOutput:
		r.ForLLM, r.ForUser = o.ForLLM, o.ForUser
	case *DualToolOutput:
		r.ForLLM, r.ForUser = o.ForLLM, o.ForUser
	case StreamedOutput:
		r.Streamed = true
	case SilentResult:
		r.ForLLM, r.Silent = o.ForLLM, true
	case *SilentResult:
		r.ForLLM, r.Silent = o.ForLLM, true
	case DataOutput:
		r.ForLLM = o.Text
	case *DataOutput:
		r.ForLLM = o.Text
	case BlockCarrier:
		r.Blocks = append(r.Blocks, o.ToolBlocks()...)
		if s, ok := o.(fmt.Stringer); ok {
			r.ForLLM = s.String()
		}
	case DataCarrier:
		if s, ok := o.(fmt.Stringer); ok {
			r.ForLLM = s.String()
		}
	default:
		b, err := MarshalJSON(o)
		if err != nil {
			return fmt.Errorf("cannot encode tool output of type %T as JSON: %v", v, err)
		}
		r.ForLLM = string(b)
	}
	if d, ok := v.(DataCarrier); ok {
		return r.SetData(d.ToolData())
	}
	return nil
}

// SetData sets Data to v in plain JSON shapes. A value that already is
// one is kept as it is (the caller must not change it afterwards); any
// other value (a struct, a []string, an int, ...) goes through its JSON
// encoding, so every consumer sees the same shapes and integral numbers
// as int64. A value JSON cannot encode (a channel, NaN) is an error, and
// Data is left unchanged.
func (r *Result) SetData(v any) error {
	if plainJSON(v, 0) {
		r.Data = v
		return nil
	}
	b, err := MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("cannot encode tool data of type %T as JSON: %v", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var d any
	if err := dec.Decode(&d); err != nil {
		return fmt.Errorf("cannot decode tool data of type %T: %v", v, err)
	}
	if r.Data, err = withoutNumbers(d); err != nil {
		return fmt.Errorf("tool data of type %T: %v", v, err)
	}
	return nil
}

// maxDataDepth bounds the nesting the fast path of SetData walks; deeper
// values take the JSON path, whose decoder has its own bound.
const maxDataDepth = 64

// plainJSON reports whether v is made only of plain JSON shapes, with
// finite floats and UTF-8 strings, so it encodes and decodes to itself.
func plainJSON(v any, depth int) bool {
	if depth > maxDataDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0) && x != math.Trunc(x)
	case []any:
		for _, e := range x {
			if !plainJSON(e, depth+1) {
				return false
			}
		}
		return x != nil
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !plainJSON(e, depth+1) {
				return false
			}
		}
		return x != nil
	}
	return false
}

// withoutNumbers replaces json.Numbers with int64 (when integral and in
// range) or float64.
func withoutNumbers(v any) (any, error) {
	var err error
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range", x)
		}
		return f, nil
	case []any:
		for i := range x {
			if x[i], err = withoutNumbers(x[i]); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k := range x {
			if x[k], err = withoutNumbers(x[k]); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// MarshalJSON encodes v compactly with sorted map keys and without
// escaping <, > and &, so output stays readable for models and people.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
