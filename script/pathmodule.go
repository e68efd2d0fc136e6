package script

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/workpath"
)

// pathModule is the path helpers policies use on canonical paths
// (call.args paths, call.effects): lexical, looking at no filesystem.
var pathModule = Module{
	Name: "path",
	Doc:  "lexical helpers for slash paths, such as a call's canonical paths: clean, within, match",
	Members: []Builtin{
		{Name: "clean", Doc: `p with "." and ".." resolved lexically and no trailing slash ("." for "")`,
			Params: []Param{{Name: "p", Kind: String}},
			Fn:     func(_ context.Context, a Args) (any, error) { return workpath.Clean(a["p"].(string)), nil }},
		{Name: "within", Doc: `whether p is dir or lies below it, lexically ("." holds every relative path that does not climb out with "..")`,
			Params: []Param{{Name: "p", Kind: String}, {Name: "dir", Kind: String}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return workpath.Within(a["p"].(string), a["dir"].(string)), nil
			}},
		{Name: "match", Doc: "whether p matches a glob pattern, or any of a list of them (*, **, ?, [abc], {a,b}); " +
			"a pattern without / matches the base name wherever p lies (*.pem), one with / the whole path (src/**/*.go), " +
			"one ending in / the path or anything below it (.ssh/)",
			Params: []Param{{Name: "pattern", Kind: Any}, {Name: "p", Kind: String}},
			Fn: func(_ context.Context, a Args) (any, error) {
				patterns, err := patternsOf(a["pattern"])
				if err != nil {
					return nil, err
				}
				for _, pat := range patterns {
					ok, err := workpath.Match(pat, a["p"].(string))
					if err != nil || ok {
						return ok, err
					}
				}
				return false, nil
			}},
	},
}

// patternsOf reads a glob pattern or a list of them.
func patternsOf(v any) ([]string, error) {
	if s, ok := v.(string); ok {
		return []string{s}, nil
	}
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("pattern: got %s, want a glob pattern or a list of them", describe(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("pattern[%d]: got %s, want a glob pattern", i, describe(e))
		}
		out[i] = s
	}
	return out, nil
}
