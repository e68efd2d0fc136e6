package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/core"
)

// decodeArgs decodes a call's arguments into T. The executor has already
// checked that args is an object; a type mismatch (possible when schema
// validation is off) is reported with the field's name.
func decodeArgs[T any](tool string, args json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(args, &v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			return v, fmt.Errorf("%s: %s must be %s, got %s", tool, te.Field, jsonType(te.Type.String()), te.Value)
		}
		return v, fmt.Errorf("%s: %v", tool, err)
	}
	return v, nil
}

func jsonType(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "*int", "*int64":
		return "an integer"
	}
	return "a " + goType
}

// tool builds a core.Tool whose arguments decode into T.
func tool[T any](name, description, schema string, safe *bool, idempotent bool, run func(ctx context.Context, a T) (any, error)) core.Tool {
	return core.Tool{
		Name:            name,
		Description:     description,
		Parameters:      json.RawMessage(schema),
		ConcurrencySafe: safe,
		Idempotent:      idempotent,
		Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			a, err := decodeArgs[T](name, raw)
			if err != nil {
				return nil, err
			}
			return run(ctx, a)
		},
	}
}

var (
	safe   = core.Bool(true)
	unsafe = core.Bool(false)
)
