package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/provider"
)

// How a diverged request is explained: against the recorded request
// nearest to it, the first field (in the order the JSON holds them) whose
// values differ, as a path such as messages[3].tool_calls[0].args.path.

// nearest returns the index of the recorded request nearest to req: an
// equal one, else the one sharing the most leading messages, then the one
// whose length is closest, then equal model, system prompt and tool
// definitions. A tie goes to the request the replay expected next (want),
// then to the earlier one.
func (p *Player) nearest(req provider.Request, want int) int {
	gotMsgs := marshalEach(req.Messages)
	gotTools, _ := json.Marshal(req.Tools)
	best := -1
	var bestScore [6]int
	for i, e := range p.entries {
		lead := 0
		for lead < len(e.Request.Messages) && lead < len(gotMsgs) {
			b, _ := json.Marshal(e.Request.Messages[lead])
			if !bytes.Equal(b, gotMsgs[lead]) {
				break
			}
			lead++
		}
		tools, _ := json.Marshal(e.Request.Tools)
		score := [6]int{b2i(equalJSON(e.Request, req)), lead, -abs(len(e.Request.Messages) - len(gotMsgs)),
			b2i(e.Request.Model == req.Model), b2i(e.Request.System == req.System), b2i(bytes.Equal(tools, gotTools))}
		if best < 0 || greater(score, bestScore) || score == bestScore && i == want {
			best, bestScore = i, score
		}
	}
	return best
}

func greater(a, b [6]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func marshalEach(msgs []provider.Message) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i], _ = json.Marshal(m)
	}
	return out
}

// firstField names the first field where got differs from want, with both
// values: `messages[2].content: got "…", recorded "…"`. It returns "" when
// the two encode the same.
func firstField(want, got any) string {
	w, err1 := json.Marshal(want)
	g, err2 := json.Marshal(got)
	if err1 != nil || err2 != nil {
		return "the request cannot be encoded"
	}
	wn, err1 := parseOrdered(w)
	gn, err2 := parseOrdered(g)
	if err1 != nil || err2 != nil {
		return "the request cannot be decoded"
	}
	path, wv, gv, differs := wn.diff(gn, "")
	if !differs {
		return ""
	}
	if path == "" {
		path = "the request"
	}
	return fmt.Sprintf("%s: %s", path, describePair(wv, gv))
}

// node is a JSON value that keeps the order of an object's keys.
type node struct {
	kind  byte // '{', '[', or 0 for a scalar
	keys  []string
	elems []*node
	raw   string // a scalar's JSON text
}

func parseOrdered(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return parseNode(dec)
}

func parseNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &node{kind: byte(t)}
		for dec.More() {
			if n.kind == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			e, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	default:
		raw, err := json.Marshal(t)
		return &node{raw: string(raw)}, err
	}
}

// diff walks want (n) and got (o) in want's order and returns the path of
// the first difference and the two values there (nil for an absent one).
func (n *node) diff(o *node, path string) (string, *node, *node, bool) {
	if n.kind != o.kind {
		return path, n, o, true
	}
	switch n.kind {
	case 0:
		return path, n, o, n.raw != o.raw
	case '[':
		for i := 0; i < max(len(n.elems), len(o.elems)); i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(o.elems):
				return p, n.elems[i], nil, true
			case i >= len(n.elems):
				return p, nil, o.elems[i], true
			}
			if p, a, b, d := n.elems[i].diff(o.elems[i], p); d {
				return p, a, b, true
			}
		}
		return path, n, o, false
	}
	seen := make(map[string]bool, len(n.keys))
	for i, k := range n.keys {
		seen[k] = true
		p := joinPath(path, k)
		j := indexOf(o.keys, k)
		if j < 0 {
			return p, n.elems[i], nil, true
		}
		if p, a, b, d := n.elems[i].diff(o.elems[j], p); d {
			return p, a, b, true
		}
	}
	for j, k := range o.keys {
		if !seen[k] {
			return joinPath(path, k), nil, o.elems[j], true
		}
	}
	return path, n, o, false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexOf(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

// describePair shows the two values at a difference: strings by where
// they part, other values as (clipped) JSON; an absent value says so.
func describePair(want, got *node) string {
	switch {
	case want == nil:
		return fmt.Sprintf("got %s, which the recording does not have", clipJSON(got))
	case got == nil:
		return fmt.Sprintf("missing; recorded %s", clipJSON(want))
	}
	var ws, gs string
	if want.kind == 0 && got.kind == 0 && json.Unmarshal([]byte(want.raw), &ws) == nil && json.Unmarshal([]byte(got.raw), &gs) == nil {
		return firstDiff(ws, gs)
	}
	return fmt.Sprintf("got %s, recorded %s", clipJSON(got), clipJSON(want))
}

// clipJSON is a value's JSON text, cut to a readable length.
func clipJSON(n *node) string {
	var b strings.Builder
	n.write(&b)
	s := b.String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case 0:
		b.WriteString(n.raw)
	case '[':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
			if b.Len() > 100 {
				break
			}
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(n.keys[i]))
			b.WriteByte(':')
			e.write(b)
			if b.Len() > 100 {
				break
			}
		}
		b.WriteByte('}')
	}
}
