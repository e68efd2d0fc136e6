package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestResultInfoFields(t *testing.T) {
	okRes := &ResultInfo{R: &core.Result{CallID: "call_1", Tool: "t", ForLLM: "model", ForUser: "person", Silent: true,
		Blocks:   []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{1, 2}}, {Type: "text", Text: "cap"}},
		Artifact: &core.ArtifactRef{ID: "art_1", Size: 99}, Data: map[string]any{"paths": []any{"a.go"}, "total": int64(1)}}}
	want := map[string]any{
		"ok": true, "output": "model", "for_user": "person", "silent": true, "error": nil, "error_kind": nil,
		"blocks": []any{
			map[string]any{"type": "image", "mime_type": "image/png", "size": int64(2)},
			map[string]any{"type": "text", "mime_type": "", "size": int64(0), "text": "cap"},
		},
		"artifact": map[string]any{"id": "art_1", "size": int64(99)},
		"data":     map[string]any{"paths": []any{"a.go"}, "total": int64(1)},
		"call_id":  "call_1", "tool": "t", "decisions": []any{},
	}
	if got := okRes.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields() = %#v\nwant %#v", got, want)
	}
	if err := CheckValue(okRes.Fields(), "fields"); err != nil {
		t.Errorf("Fields() is not a JSON shape: %v", err)
	}

	errRes := &ResultInfo{R: &core.Result{CallID: "call_2", Tool: "u", Err: &core.Error{Kind: core.KindRejected, Message: "rejected by \"h\": no"}}}
	f := errRes.Fields()
	if f["ok"] != false || f["error"] != `rejected by "h": no` || f["error_kind"] != "rejected" || f["output"] != "" ||
		f["for_user"] != "" || f["artifact"] != nil || f["data"] != nil || len(f["blocks"].([]any)) != 0 {
		t.Errorf("error Fields() = %#v", f)
	}
	plainErr := &ResultInfo{R: &core.Result{Err: errors.New("plain")}}
	if plainErr.Kind() != "failed" || plainErr.Error() != "plain" {
		t.Errorf("plain error: %v %v", plainErr.Kind(), plainErr.Error())
	}

	// FieldNames is sorted and matches Fields and Field exactly.
	if !sort.StringsAreSorted(FieldNames) {
		t.Error("FieldNames not sorted")
	}
	for _, r := range []*ResultInfo{okRes, errRes} {
		fields := r.Fields()
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !slices.Equal(keys, FieldNames) {
			t.Errorf("Fields keys %v != FieldNames %v", keys, FieldNames)
		}
		for _, name := range FieldNames {
			v, ok := r.Field(name)
			if !ok || !reflect.DeepEqual(v, fields[name]) {
				t.Errorf("Field(%q) = %#v, %v; Fields has %#v", name, v, ok, fields[name])
			}
		}
		if v, ok := r.Field("nope"); ok || v != nil {
			t.Error("Field(nope) found")
		}
	}
	// for_user falls back to the output.
	if v, _ := (&ResultInfo{R: &core.Result{ForLLM: "same"}}).Field("for_user"); v != "same" {
		t.Errorf("for_user fallback = %v", v)
	}
}

func TestResultInfoString(t *testing.T) {
	for _, tc := range []struct {
		r    core.Result
		want string
	}{
		{core.Result{ForLLM: "out"}, `result(ok=True, output="out")`},
		{core.Result{ForLLM: "m", ForUser: "p"}, `result(ok=True, output="m", for_user="p")`},
		{core.Result{ForLLM: "q", Silent: true}, `result(ok=True, output="q", silent=True)`},
		{core.Result{ForLLM: "<&>\n\"x\"\t\u00e9"}, `result(ok=True, output="<&>\n\"x\"\té")`},
		{core.Result{ForLLM: "", CallID: "call_9", Tool: "t", Blocks: []core.Block{{Type: "image"}}}, `result(ok=True, output="")`},
		{core.Result{ForLLM: "ignored", Err: &core.Error{Kind: core.KindTimeout, Message: "t timed out"}}, `result(ok=False, error_kind="timeout", error="t timed out")`},
		{core.Result{Err: errors.New("boom \"q\"")}, `result(ok=False, error_kind="failed", error="boom \"q\"")`},
	} {
		r := &ResultInfo{R: &tc.r}
		if got := r.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
		if r.String() != r.String() {
			t.Error("String() not deterministic")
		}
	}
}

func TestCallInfo(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		args map[string]any
	}{
		{`{"a":[1,2.5],"b":{"c":null}}`, map[string]any{"a": []any{int64(1), 2.5}, "b": map[string]any{"c": nil}}},
		{`{}`, map[string]any{}},
		{``, map[string]any{}},
		{`[1]`, map[string]any{}},   // after hooks see calls whose arguments were refused
		{`{bad`, map[string]any{}},  // or were never JSON
		{`"str"`, map[string]any{}}, // or not an object
	} {
		call := &core.Call{ID: "call_3", Name: "t", Args: json.RawMessage(tc.raw)}
		ci := newCallInfo(call)
		if ci.ID != "call_3" || ci.Name != "t" || ci.Raw != tc.raw || !reflect.DeepEqual(argsOf(ci), tc.args) {
			t.Errorf("newCallInfo(%q) = %+v", tc.raw, ci)
		}
	}
}

func TestNextCall(t *testing.T) {
	var seen []string
	next := func(ctx context.Context, call *core.Call) *core.Result {
		seen = append(seen, call.ID+" "+string(call.Args))
		return &core.Result{ForLLM: "done " + string(call.Args)}
	}
	call := &core.Call{ID: "call_1", Name: "t", Args: json.RawMessage(`{"orig":1}`)}
	n := &Next{call: call, next: next}
	r, err := n.Call(context.Background(), nil)
	if err != nil || r.R.ForLLM != `done {"orig":1}` {
		t.Fatal(r, err)
	}
	r, err = n.Call(context.Background(), map[string]any{"new": "v"})
	if err != nil || r.R.ForLLM != `done {"new":"v"}` {
		t.Fatal(r, err)
	}
	if string(call.Args) != `{"orig":1}` {
		t.Errorf("Next.Call changed the caller's call: %s", call.Args)
	}
	if _, err := n.Call(context.Background(), map[string]any{"bad": []any{struct{}{}}}); err == nil {
		t.Error("bad args accepted")
	}
	if len(seen) != 2 || seen[0] != `call_1 {"orig":1}` || seen[1] != `call_1 {"new":"v"}` {
		t.Errorf("seen %q", seen)
	}
	if got := (Verdict{Verdict: core.VerdictDeny, Reason: "why"}).String(); got != `deny("why")` {
		t.Errorf("deny String: got %s, want deny(\"why\")", got)
	}
}

// argsOf is c.Arguments() for calls whose arguments decode.
func argsOf(c *CallInfo) map[string]any {
	args, err := c.Arguments()
	if err != nil {
		panic(err)
	}
	return args
}

// TestArgumentsAs: a call's args decoded straight into a binding's values
// are what Arguments decodes, and fail with its errors: {} for text that
// is no object, an error naming the call for arguments with no script
// form. A call whose args were decoded already gives that value.
func TestArgumentsAs(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	for _, raw := range []string{
		`{"a":[1,2.5],"b":{"c":null}}`, ` {"z":1,"a":{"y":"\u00e9","x":[]}} `, `{"k":1,"k":2}`,
		`{}`, ``, `   `, `[1]`, `{bad`, `"str"`, `{"a":1} x`, `{"pad": 1e400}`, deep,
	} {
		want, wantErr := newCallInfo(&core.Call{Name: "read", Args: json.RawMessage(raw)}).Arguments()
		var bad string
		got, err := ArgumentsAs[any](newCallInfo(&core.Call{Name: "read", Args: json.RawMessage(raw)}), strictShapes{bad: &bad})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("ArgumentsAs(%.40q) error = %v, want %v", raw, err, wantErr)
		}
		if bad != "" {
			t.Errorf("ArgumentsAs(%.40q): %s", raw, bad)
		}
		if wantErr == nil && !sameJSON(got, map[string]any(want)) {
			t.Errorf("ArgumentsAs(%.40q) = %#v, want %#v", raw, got, want)
		}
	}
	if _, err := newCallInfo(&core.Call{Name: "read", Args: json.RawMessage(`{"pad": 1e400}`)}).Arguments(); err == nil ||
		err.Error() != `call read: args["pad"]: number 1e400 is out of range` {
		t.Errorf("Arguments error = %v", err)
	}
	ci := newCallInfo(&core.Call{Name: "t", Args: json.RawMessage(`{"a":1}`)})
	ci.args = map[string]any{"decoded": true} // as if a script had decoded (and seen) it
	if got, err := ArgumentsAs[any](ci, Shapes{}); err != nil || !sameJSON(got, map[string]any{"decoded": true}) {
		t.Errorf("after Arguments: ArgumentsAs = %v, %v; want the decoded value", got, err)
	}
}
