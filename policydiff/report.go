package policydiff

import (
	"fmt"
	"sort"
)

// Report is what a diff found. Its JSON shape is the package doc's. A
// Report is not changed once Diff returns it; its methods may be called
// concurrently.
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

// coverage counts the calls each hook decided under each set. A hook of
// OLD and one of NEW are one row when they have one name (the k-th hook
// of a name in OLD is the k-th of that name in NEW): their sources differ
// when the sets are two copies of one policy. Hooks defined in Go (no
// source) count only when they decided a call.
func coverage(old, new Policy, olds, news []Ruling) []HookCoverage {
	var rows []HookCoverage
	at := map[string]int{}
	row := func(key, name string) *HookCoverage {
		i, ok := at[key]
		if !ok {
			i = len(rows)
			at[key] = i
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
	// keys[side] maps a registered hook's name and source to its row key.
	keys := [2]map[Hook]string{{}, {}}
	for s, p := range [2]Policy{old, new} {
		seen := map[string]int{}
		for _, h := range p.Hooks {
			if h.Source == "" {
				continue
			}
			seen[h.Name]++
			key := fmt.Sprintf("%s#%d", h.Name, seen[h.Name])
			keys[s][h] = key
			c := side(row(key, h.Name), s == 1)
			if *c == nil {
				*c = &SideCoverage{Source: h.Source}
			}
		}
	}
	registered := len(rows)
	for s, rulings := range [2][]Ruling{olds, news} {
		for _, r := range rulings {
			name := r.Hook
			if name == "" {
				name = "(" + r.ErrorKind + ")"
			}
			key, ok := keys[s][Hook{Name: r.Hook, Source: r.Source}]
			if !ok {
				key = name + "\x00" + r.Source
			}
			c := side(row(key, name), s == 1)
			if *c == nil {
				*c = &SideCoverage{Source: r.Source}
			}
			(*c).Calls++
		}
	}
	// Approval steps and hooks of tools, after the registered hooks, by
	// name.
	rest := rows[registered:]
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Hook < rest[j].Hook })
	return rows
}
