package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/applypatch"
	"github.com/agentsh/agentsh/workpath"
)

// The canonical call: before any hook runs, the arguments a tool declares
// (core.Tool.Effects) are made canonical once — paths decoded from the
// quoted form, made relative to the working directory, cleaned, their
// symbolic links below it resolved, and refused when they leave it — and
// the call's Effects are listed. Hooks, the approver, decision records,
// Decide and the tool all see the same arguments; Call.RawArgs keeps what
// was sent.

// none is the empty list of every Effects field: appending to it
// allocates, so it is never written.
var none = []string{}

func noEffects() *core.Effects {
	return &core.Effects{Reads: none, Writes: none, Deletes: none, Hosts: none,
		Shell: []core.ShellRun{}, Code: []core.CodeRun{}}
}

// The effects of every call of a tool that declares none, and of an
// unknown tool: shared, as a call's Effects are read-only.
var (
	undeclared = noEffects()
	unknown    = func() *core.Effects { e := noEffects(); e.Unknown = true; return e }()
)

// canonicalize makes call.Args canonical and sets call.Effects. With
// record, it records a canonical step when the arguments changed (a
// hook's rewrite is recorded as the hook's). The error says which
// argument cannot be made canonical and why; the call must not run.
func (e *Executor) canonicalize(call *core.Call, record bool) error {
	dir, err := e.dirFor(call)
	if err != nil {
		return err
	}
	t := call.Tool
	switch {
	case t == nil:
		call.Effects = unknown
		return nil
	case len(t.Effects) == 0:
		call.Effects = undeclared
		return nil
	}
	fx := noEffects()
	call.Effects = fx
	obj, dup, err := members(call.Args)
	if err != nil {
		return err
	}
	changed := dup
	shellDir := "."
	// Directories first: a shell command runs in the canonical one.
	for _, ae := range t.Effects {
		if ae.Kind != core.ArgDir {
			continue
		}
		vals, _, ok := stringsOf(obj[ae.Arg])
		if !ok || len(vals) == 0 {
			continue
		}
		c, err := dir.Canonical(vals[0], workpath.FollowAll)
		if err != nil {
			return argError(ae.Arg, err)
		}
		shellDir = c
		if q := workpath.Quote(c); q != vals[0] {
			obj[ae.Arg], changed = encode(q), true
		}
	}
	for _, ae := range t.Effects {
		raw, present := obj[ae.Arg]
		vals, array, ok := stringsOf(raw)
		if !ok {
			continue // not strings: the tool's own checks refuse it
		}
		if !present && ae.Default != "" {
			vals = []string{ae.Default}
		}
		switch ae.Kind {
		case core.ArgRead, core.ArgWrite, core.ArgDelete:
			// The tools read and write through a link; a delete removes
			// the link itself.
			follow := workpath.FollowAll
			if ae.Kind == core.ArgDelete {
				follow = workpath.FollowParents
			}
			out := make([]string, len(vals))     // bare, for Effects
			printed := make([]string, len(vals)) // as the tools print them, for Args
			for i, v := range vals {
				c, err := dir.Canonical(v, follow)
				if err != nil {
					return argError(ae.Arg, err)
				}
				out[i], printed[i] = c, workpath.Quote(c)
			}
			if !slices.Equal(printed, vals) {
				changed = true
				if array {
					obj[ae.Arg] = encode(printed)
				} else {
					obj[ae.Arg] = encode(printed[0])
				}
			}
			switch ae.Kind {
			case core.ArgRead:
				fx.Reads = append(fx.Reads, out...)
			case core.ArgWrite:
				fx.Writes = append(fx.Writes, out...)
			default:
				fx.Deletes = append(fx.Deletes, out...)
			}
		case core.ArgShell:
			for _, v := range vals {
				fx.Shell = append(fx.Shell, core.ShellRun{Command: v, Dir: shellDir})
			}
		case core.ArgCode:
			lang := ae.Language
			if l, _, ok := stringsOf(obj["language"]); ok && len(l) == 1 {
				lang = l[0]
			}
			for _, v := range vals {
				if core.ShellLanguages[lang] {
					fx.Shell = append(fx.Shell, core.ShellRun{Command: v, Dir: shellDir})
				} else {
					fx.Code = append(fx.Code, core.CodeRun{Language: lang, Code: v})
				}
			}
		case core.ArgURL:
			for _, v := range vals {
				for _, h := range hosts(v) {
					fx.Hosts = appendNew(fx.Hosts, h)
				}
			}
		case core.ArgPatch:
			for _, v := range vals {
				if err := patchEffects(dir, shellDir, v, fx); err != nil {
					return argError(ae.Arg, err)
				}
			}
		}
	}
	if changed {
		before := call.Args
		call.Args = encodeObject(obj)
		if !record {
			return nil
		}
		call.Record(core.Decision{Stage: core.StageCanonical, Hook: "canonical", Rewrote: true,
			ArgsBefore: before, ArgsAfter: call.Args})
	}
	return nil
}

// patchEffects adds what an apply_patch patch writes and deletes; its
// relative paths are relative to base (canonical), where it is applied.
func patchEffects(dir *workpath.Dir, base, patch string, fx *core.Effects) error {
	changes, err := applypatch.Parse(patch)
	if err != nil {
		return fmt.Errorf("the patch cannot be read, so what it changes is unknown: %v", err)
	}
	at := func(p string) string {
		if filepath.IsAbs(p) || base == "." {
			return p
		}
		return path.Join(base, p)
	}
	for _, c := range changes {
		p, err := dir.Canonical(at(c.Path), workpath.FollowParents)
		if err != nil {
			return err
		}
		switch {
		case c.Op == applypatch.Delete:
			fx.Deletes = append(fx.Deletes, p)
		case c.MoveTo != "":
			to, err := dir.Canonical(at(c.MoveTo), workpath.FollowParents)
			if err != nil {
				return err
			}
			fx.Deletes = append(fx.Deletes, p)
			fx.Writes = append(fx.Writes, to)
		default:
			fx.Writes = append(fx.Writes, p)
		}
	}
	return nil
}

// urlPattern finds the URLs in text that holds more than a URL (a
// prompt naming the pages to fetch).
var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://[^\s"'<>]+`) })

// hosts returns the hosts a URL argument reaches: the URL's, or those of
// every URL in the text.
func hosts(v string) []string {
	v = strings.TrimSpace(v)
	var out []string
	if u, err := url.Parse(v); err == nil && u.Hostname() != "" && !strings.ContainsAny(v, " \t\n") {
		return []string{strings.ToLower(u.Hostname())}
	}
	for _, m := range urlPattern().FindAllString(v, -1) {
		if u, err := url.Parse(m); err == nil && u.Hostname() != "" {
			out = append(out, strings.ToLower(u.Hostname()))
		}
	}
	return out
}

// argError names the argument a canonical path came from, unless it is
// the usual one, path, which the message names already.
func argError(arg string, err error) error {
	if arg == "path" {
		return err
	}
	return fmt.Errorf("%s: %w", arg, err)
}

// members decodes the arguments object, keeping its values undecoded,
// in one pass, and reports whether a key appears twice (the last one
// counts, as the tools read it; the canonical arguments keep only that
// one).
func members(args json.RawMessage) (map[string]json.RawMessage, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	if _, err := dec.Token(); err != nil { // {
		return nil, false, err
	}
	obj := map[string]json.RawMessage{}
	dup := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, err
		}
		_, seen := obj[key]
		dup = dup || seen
		obj[key] = v
	}
	return obj, dup, nil
}

// stringsOf reads a string or an array of strings; ok is false for
// anything else (absent is ok, and empty).
func stringsOf(raw json.RawMessage) (vals []string, array, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false, true
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false, false
		}
		return []string{s}, false, true
	case '[':
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return nil, true, false
		}
		return ss, true, true
	}
	return nil, false, false
}

// encode is v as JSON, without HTML escaping: a person reads these.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// encodeObject writes the members in sorted key order.
func encodeObject(obj map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encode(k))
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// makeCanonical canonicalizes call and, when it cannot be, records the
// refusal and returns the invalid_arguments error the call fails with.
func (e *Executor) makeCanonical(call *core.Call) *core.Error {
	err := e.canonicalize(call, true)
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("%s: %v", call.Name, err)
	call.Record(core.Decision{Stage: core.StageCanonical, Hook: "canonical", Verdict: core.VerdictDeny, Reason: msg})
	return &core.Error{Kind: core.KindInvalidArguments, Tool: call.Name, CallID: call.ID, Hook: "canonical", Message: msg, Err: err}
}
