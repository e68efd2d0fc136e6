package policydiff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/agentsh/agentsh/internal/termsafe"
)

// WriteText writes the report for a person: each group of changed calls
// with its calls, the coverage when the report has it, and a summary
// line. What the calls and policies wrote is made safe for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, g := range r.Changes {
		fmt.Fprintf(bw, "%s → %s: %s\n", label(g.From), label(g.To), plural(g.Count, "call"))
		for _, c := range g.Calls {
			fmt.Fprintf(bw, "  %s  %s %s\n", termsafe.String(c.At), termsafe.String(c.Tool), termsafe.String(c.Args))
			if c.OldReason != "" && c.OldReason != c.NewReason {
				fmt.Fprintf(bw, "      was: %s\n", oneLine(c.OldReason))
			}
			if c.NewReason != "" {
				fmt.Fprintf(bw, "      now: %s\n", oneLine(c.NewReason))
			}
		}
		bw.WriteString("\n")
	}
	if r.Coverage != nil {
		r.writeCoverage(bw)
		bw.WriteString("\n")
	}
	bw.WriteString(r.Summary() + "\n")
	return bw.Flush()
}

// Summary is the report's last line: how many calls were re-decided,
// changed and skipped (and why), and which sources were empty.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%s re-decided, %d changed, %d skipped", plural(r.Calls, "call"), r.Changed, r.Skipped)
	if r.Skipped > 0 {
		var why []string
		for k, n := range r.SkippedBy {
			why = append(why, fmt.Sprintf("%s: %d", k, n))
		}
		sort.Strings(why)
		s += " (" + strings.Join(why, ", ") + ")"
	}
	var empty []string
	for _, src := range r.Sources {
		if src.Format == "" {
			empty = append(empty, termsafe.String(src.File))
		}
	}
	if len(empty) > 0 {
		s += "; empty: " + strings.Join(empty, ", ")
	}
	return s
}

// writeCoverage writes a table of the calls each hook decided, OLD → NEW,
// and marks the registered hooks that decided none.
func (r *Report) writeCoverage(w io.Writer) {
	fmt.Fprintf(w, "calls each hook decided, %s → %s:\n", termsafe.String(r.Old), termsafe.String(r.New))
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	for _, h := range r.Coverage {
		src, none := "", true
		for _, s := range []*SideCoverage{h.New, h.Old} {
			if s != nil && src == "" {
				src = s.Source
			}
			if s != nil && s.Calls > 0 {
				none = false
			}
		}
		note := ""
		switch {
		case none:
			note = "decided none"
		case h.Old == nil:
			note = "only in " + termsafe.String(r.New)
		case h.New == nil:
			note = "only in " + termsafe.String(r.Old)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%5s → %-5s\t%s\n", termsafe.String(h.Hook), termsafe.String(src), count(h.Old), count(h.New), note)
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		io.WriteString(w, strings.TrimRight(line, " \n"))
		if strings.HasSuffix(line, "\n") {
			io.WriteString(w, "\n")
		}
	}
}

func count(s *SideCoverage) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprint(s.Calls)
}

// WriteJSON writes the report as one JSON object (the package doc's
// shape) and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// label names a ruling: "deny by HOOK (FILE:LINE)", "allow by default",
// "deny (unknown_tool)".
func label(r Ruling) string {
	s := r.Verdict.String()
	if r.Hook != "" {
		s += " by " + r.Hook
	}
	var where []string
	if r.ErrorKind != "" {
		where = append(where, r.ErrorKind)
	}
	if r.Source != "" {
		where = append(where, r.Source)
	}
	if r.Failed {
		where = append(where, "failed")
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, ", ") + ")"
	}
	return termsafe.String(s)
}

// oneLine is a reason's first line, safe for a terminal.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return termsafe.String(s)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
