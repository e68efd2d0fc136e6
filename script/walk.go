package script

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Limits of every conversion of a value between a script and Go.
const (
	// MaxDepth is how deeply lists, dicts and tables may nest. A deeper
	// value is an error naming the path, and so is a value that contains
	// itself, instead of a recursion that ends only when memory does.
	MaxDepth = 1000

	// MaxItems bounds the values one conversion of a script value visits
	// (4,194,304). A list that appears many times over in a value
	// (x = [x, x], thirty times) is converted once per appearance, so a few
	// script steps could otherwise keep a conversion, which no timeout
	// interrupts, busy for hours.
	MaxItems = 1 << 22
)

// nearLevels is how many outer levels of a walk are searched one by one
// for a container met again; deeper levels go into a set, so a deep
// value costs no more per level than a shallow one.
const nearLevels = 16

// A Walk is the bookkeeping of one conversion. It keeps the path to the
// value being converted as steps and renders it only when an error names
// it, so a conversion builds no strings; it bounds depth and size; and it
// knows the containers being converted, so a value that contains itself is
// an error.
//
// A conversion calls Enter before the elements of a container, Index, Key
// or Field before each element, and Leave after the last one. Errors at
// the value being converted come from Errorf. A Walk belongs to one
// goroutine; get one with NewWalk and give it back with Done.
type Walk struct {
	root   string
	levels []level
	far    map[unsafe.Pointer]struct{} // ids of levels[nearLevels:]
	items  int
}

type stepKind uint8

const (
	stepNone  stepKind = iota // no element chosen yet: the container itself
	stepIndex                 // [i]
	stepKey                   // ["k"]
	stepField                 // .name
)

// level is one open container and the step to its element being converted.
type level struct {
	id    unsafe.Pointer // the container's identity; nil when it cannot contain itself
	kind  stepKind
	index int
	key   string
}

var walks = sync.Pool{New: func() any { return new(Walk) }}

// NewWalk returns a Walk whose paths start with root, such as "args" or
// "return value"; "" names the value itself.
func NewWalk(root string) *Walk {
	w := walks.Get().(*Walk)
	w.root = root
	return w
}

// Done gives w back; it must not be used afterwards.
func (w *Walk) Done() {
	if cap(w.levels) > 4*nearLevels {
		w.levels = nil // a rare deep value: let its memory go
	} else {
		w.levels = w.levels[:0]
	}
	clear(w.far)
	w.root, w.items = "", 0
	walks.Put(w)
}

// Enter opens a container whose identity is id (nil for one that cannot
// contain itself, such as a value decoded from JSON). It fails when the
// container is nested too deeply or is already open, that is, when the
// value contains itself.
func (w *Walk) Enter(id unsafe.Pointer) error {
	d := len(w.levels)
	if d >= MaxDepth {
		return w.inline(fmt.Sprintf("is nested deeper than %d levels", MaxDepth))
	}
	if id != nil {
		if w.open(id) {
			return w.inline("contains itself, which JSON cannot represent")
		}
		if d >= nearLevels {
			if w.far == nil {
				w.far = map[unsafe.Pointer]struct{}{}
			}
			w.far[id] = struct{}{}
		}
	}
	w.levels = append(w.levels, level{id: id})
	return nil
}

func (w *Walk) open(id unsafe.Pointer) bool {
	near := w.levels[:min(len(w.levels), nearLevels)]
	for i := range near {
		if near[i].id == id {
			return true
		}
	}
	if len(w.levels) > nearLevels {
		_, ok := w.far[id]
		return ok
	}
	return false
}

// Count adds n elements to the values this conversion has visited and
// fails when they exceed MaxItems. Conversions of script values count;
// values from Go and from JSON text cannot share parts and need not.
func (w *Walk) Count(n int) error {
	w.items += n
	if w.items > MaxItems {
		return &ValueError{Path: w.root, Msg: fmt.Sprintf("value has more than %d items in all (does it hold one list or dict many times over?); pass it in smaller pieces", MaxItems)}
	}
	return nil
}

// Leave closes the innermost container.
func (w *Walk) Leave() {
	d := len(w.levels) - 1
	if d >= nearLevels && w.levels[d].id != nil {
		delete(w.far, w.levels[d].id)
	}
	w.levels = w.levels[:d]
}

// Index says the next element is at index i, as the script numbers it.
func (w *Walk) Index(i int) {
	l := &w.levels[len(w.levels)-1]
	l.kind, l.index = stepIndex, i
}

// Key says the next element is under key k.
func (w *Walk) Key(k string) {
	l := &w.levels[len(w.levels)-1]
	l.kind, l.key = stepKey, k
}

// Field says the next element is the field name.
func (w *Walk) Field(name string) {
	l := &w.levels[len(w.levels)-1]
	l.kind, l.key = stepField, name
}

// Errorf returns a *ValueError at the value being converted.
func (w *Walk) Errorf(format string, args ...any) error {
	return &ValueError{Path: w.Path(), Msg: fmt.Sprintf(format, args...)}
}

func (w *Walk) inline(msg string) error {
	return &ValueError{Path: w.Path(), Msg: msg, inline: true}
}

// Path renders the path to the value being converted, such as
// args["items"][2]. A long path keeps its first and last steps.
func (w *Walk) Path() string {
	const head, tail = 8, 4
	var b strings.Builder
	b.WriteString(w.root)
	for i := 0; i < len(w.levels); i++ {
		if i == head && len(w.levels) > head+tail+1 {
			b.WriteString("…")
			i = len(w.levels) - tail
		}
		l := w.levels[i]
		switch l.kind {
		case stepIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(l.index))
			b.WriteByte(']')
		case stepKey:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(shorten(l.key, maxKeyInPath)))
			b.WriteByte(']')
		case stepField:
			b.WriteByte('.')
			b.WriteString(shorten(l.key, maxKeyInPath))
		}
	}
	return b.String()
}

// maxKeyInPath bounds a key as a path shows it.
const maxKeyInPath = 64

// shorten cuts s to at most n bytes, on a character boundary, marking the
// cut with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
