package policydiff

import (
	"path/filepath"
	"sort"
	"strings"
)

// Report is what a diff found. Its JSON shape is the package doc's.
type Report struct {
	Old string `json:"old"`
	New string `json:"new"`
	// Calls counts the calls re-decided, Changed those whose decision
	// changed, Skipped the records that were not re-decided (SkippedBy:
	// why).
	Calls     int            `json:"calls"`
	Changed   int            `json:"changed"`
	Skipped   int            `json:"skipped"`
	SkippedBy map[string]int `json:"skipped_by"`
	Sources   []Source       `json:"sources"`
	// Changes groups the changed calls by what changed, most calls first.
	Changes []Change `json:"changes"`
	// Coverage is filled in with Options.Coverage.
	Coverage []HookCoverage `json:"coverage,omitempty"`
}

// Change is a group of calls whose decision changed the same way: From
// and To name the verdict and the deciding hook (without the reason,
// which each call has).
type Change struct {
	From  Ruling        `json:"from"`
	To    Ruling        `json:"to"`
	Count int           `json:"count"`
	Calls []ChangedCall `json:"calls"`
}

// ChangedCall is one changed call: where it was recorded, what it was,
// and the reasons of both decisions.
type ChangedCall struct {
	At      string `json:"at"`
	Format  Format `json:"format"`
	ID      string `json:"id,omitempty"`
	Tool    string `json:"tool"`
	Origin  string `json:"origin"`
	WorkDir string `json:"workdir,omitempty"`
	// Args is a preview of the recorded arguments.
	Args      string `json:"args"`
	OldReason string `json:"old_reason,omitempty"`
	NewReason string `json:"new_reason,omitempty"`
}

// HookCoverage is how many calls a hook decided under each set; Old or
// New is nil when the hook is not in that set (and decided nothing there).
type HookCoverage struct {
	Hook string        `json:"hook"`
	Old  *SideCoverage `json:"old"`
	New  *SideCoverage `json:"new"`
}

// SideCoverage is a hook's place and count under one set.
type SideCoverage struct {
	Source string `json:"source,omitempty"`
	Calls  int    `json:"calls"`
	// Registered says the hook is one of the set's before hooks (not an
	// approval step such as default).
	Registered bool `json:"-"`
}

const argsPreview = 120

func newReport(old, new Policy, c *Corpus, olds, news []Ruling, o Options) *Report {
	r := &Report{Old: old.Name, New: new.Name, Calls: len(c.Calls), SkippedBy: map[string]int{},
		Sources: append([]Source{}, c.Sources...), Changes: []Change{}}
	for why, n := range c.Skipped {
		r.SkippedBy[why] = n
		r.Skipped += n
	}
	index := map[[2]Ruling]int{}
	for i := range c.Calls {
		a, b := olds[i], news[i]
		if same(a, b) {
			continue
		}
		r.Changed++
		key := [2]Ruling{withoutReason(a), withoutReason(b)}
		g, ok := index[key]
		if !ok {
			g = len(r.Changes)
			index[key] = g
			r.Changes = append(r.Changes, Change{From: key[0], To: key[1]})
		}
		rec := &c.Calls[i]
		wd := rec.WorkDir
		if wd == "" {
			wd = o.WorkDir
		}
		r.Changes[g].Count++
		r.Changes[g].Calls = append(r.Changes[g].Calls, ChangedCall{
			At: rec.At.String(), Format: rec.Format, ID: rec.ID, Tool: rec.Tool, Origin: originName(rec),
			WorkDir: wd, Args: preview(rec.Args, argsPreview), OldReason: a.Reason, NewReason: b.Reason,
		})
	}
	// Most calls first; groups of one size in the order their first call
	// was read.
	sort.SliceStable(r.Changes, func(i, j int) bool { return r.Changes[i].Count > r.Changes[j].Count })
	return r
}

func withoutReason(r Ruling) Ruling {
	r.Reason = ""
	return r
}

func originName(c *Call) string {
	if c.Origin == 0 {
		return "person" // what Decide takes an unset origin for
	}
	return c.Origin.String()
}

// coverage counts the calls each hook decided under each set. Hooks are
// told apart by name and file, not line, so one hook of two copies of a
// policy is one row.
func coverage(old, new Policy, olds, news []Ruling) []HookCoverage {
	var rows []HookCoverage
	at := map[string]int{}
	row := func(name, source string) *HookCoverage {
		k := name + "\x00" + sourceFile(source)
		i, ok := at[k]
		if !ok {
			i = len(rows)
			at[k] = i
			rows = append(rows, HookCoverage{Hook: name})
		}
		return &rows[i]
	}
	side := func(h *HookCoverage, isNew bool) **SideCoverage {
		if isNew {
			return &h.New
		}
		return &h.Old
	}
	for _, p := range []struct {
		pol   Policy
		isNew bool
	}{{old, false}, {new, true}} {
		for _, h := range p.pol.Hooks {
			s := side(row(h.Name, h.Source), p.isNew)
			if *s == nil {
				*s = &SideCoverage{Source: h.Source, Registered: true}
			}
		}
	}
	registered := len(rows)
	for _, p := range []struct {
		rulings []Ruling
		isNew   bool
	}{{olds, false}, {news, true}} {
		for _, r := range p.rulings {
			name := r.Hook
			if name == "" {
				name = "(" + r.ErrorKind + ")"
			}
			s := side(row(name, r.Source), p.isNew)
			if *s == nil {
				*s = &SideCoverage{Source: r.Source}
			}
			(*s).Calls++
		}
	}
	// Approval steps and hooks of tools, after the registered hooks, by
	// name.
	rest := rows[registered:]
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Hook < rest[j].Hook })
	return rows
}

// sourceFile is the file of a file:line source.
func sourceFile(source string) string {
	if i := strings.LastIndexByte(source, ':'); i >= 0 {
		source = source[:i]
	}
	return filepath.Base(source)
}
