package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// Result is the outcome of one call. It travels through the pipeline as a
// struct; presentation choices (dual output, silence, blocks, artifacts) are
// fields, never markers inside strings.
type Result struct {
	CallID string
	Tool   string
	// ForLLM is what the model sees.
	ForLLM string
	// ForUser is what a person sees; empty means the same as ForLLM.
	ForUser string
	// Silent suppresses display to a person; the model still sees ForLLM.
	Silent bool
	// Blocks are multimodal parts (images, ...) for providers that take them.
	Blocks []Block
	// Artifact is set when the output was offloaded to an ArtifactStore; then
	// ForLLM holds a reference, the size and a preview.
	Artifact *ArtifactRef
	// Err is nil on success, otherwise a *Error (see Kind).
	Err      error
	Duration time.Duration
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

// SetOutput maps a ToolFunc's return value into r:
//
//	string, []byte      → ForLLM
//	json.RawMessage     → ForLLM, unchanged
//	DualToolOutput      → ForLLM and ForUser
//	SilentResult        → ForLLM, Silent
//	BlockCarrier        → Blocks, and ForLLM from String() if it has one
//	nil, nil pointers   → empty output
//	anything else       → ForLLM as JSON (map keys sorted)
//
// Pointers to DualToolOutput and SilentResult are accepted too.
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
	case SilentResult:
		r.ForLLM, r.Silent = o.ForLLM, true
	case *SilentResult:
		r.ForLLM, r.Silent = o.ForLLM, true
	case BlockCarrier:
		r.Blocks = append(r.Blocks, o.ToolBlocks()...)
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
	return nil
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
