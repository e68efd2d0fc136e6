package agentsh_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/scripttest"

	_ "github.com/agentsh/agentsh/script/lua"
	_ "github.com/agentsh/agentsh/script/starlark"
)

// The cross-language conformance suite (package script/scripttest). Every
// NAME.star in testdata/conformance has a partner NAME.lua expressing the
// same program; both must print byte for byte the same transcript, which
// must equal NAME.golden, under each of the three execution modes an
// executor can default to: the same script logic gives the same
// transcript in either language and in every mode.
//
// A program may need definitions from the other language: NAME.prelude.lua
// runs (as Lua) before NAME.star, and NAME.prelude.star runs (as Starlark)
// before NAME.lua, on the same host. The two preludes are the same program
// too, so both runs see the same tools and policies, each time half of them
// from the other language.
//
// Rewrite the goldens from the Starlark runs with
//
//	go test -run Conformance . -update

var update = flag.Bool("update", false, "rewrite the golden files: testdata/conformance/*.golden from the Starlark output, testdata/traces")

const conformanceDir = "testdata/conformance"

// conformancePairs are the pairs the suite must contain; the test fails if
// one is missing, so the coverage cannot shrink by deleting a file.
var conformancePairs = []string{
	"approve",        // on("approve", fn): allow, True, False, deny, an error, always for the session
	"cross_policy",   // a Starlark policy on a Lua tool and the other way round
	"decide",         // decide(): nothing runs, state is a copy, origins, permissions, records
	"dual_silent",    // dual(...), silent(...), structured outputs, for_user
	"errors",         // every error kind: unknown, invalid JSON, schema, raise, panic, timeout
	"modes",          // invoke_all in serial, parallel and mixed; safe, unsafe, undeclared
	"nested",         // tools, hooks and middleware calling tools; recursion; nested batches
	"offload",        // config(offload = N) and artifact_read
	"pipeline_order", // tool-specific and global before/after hooks, two middleware
	"reject_rewrite", // deny and rewrite from hooks and middleware, fail-closed hooks
	"subagents",      // task and spawn(): a child under the parent's policies, its denials in the parent's reply
	"verdicts",       // every pair of verdicts from two hooks: outcome, records, decide agrees
}

// conformanceLangs are the languages of the pairs, by file extension. The
// prelude of a program always comes from the other one.
var conformanceLangs = []string{"star", "lua"}

func otherLang(lang string) string {
	if lang == "star" {
		return "lua"
	}
	return "star"
}

// TestConformance runs the suite in every registered language, which
// must include Starlark and Lua.
func TestConformance(t *testing.T) {
	if *update {
		updateGoldens(t)
	}
	var names []string
	for _, l := range script.Languages() {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "lua starlark" {
		t.Fatalf("registered languages %v, want lua and starlark", names)
	}
	for _, lang := range names {
		t.Run(lang, func(t *testing.T) { scripttest.TestLanguage(t, lang, conformanceDir) })
	}
}

// updateGoldens rewrites every golden file from the program's Starlark
// run in serial mode.
func updateGoldens(t *testing.T) {
	names, err := scripttest.Programs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		got, err := scripttest.Run(conformanceDir, name, "starlark", executor.ModeSerial)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(conformanceDir, name+".golden")
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConformanceFiles checks that the suite has no orphans: every program
// has its partner in the other language and a golden file, every golden
// file and prelude belongs to a pair, preludes come in pairs, and the pairs
// the suite promises are all there.
func TestConformanceFiles(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	isPair := func(name string) bool { return have[name+".star"] && have[name+".lua"] }
	for file := range have {
		ext := filepath.Ext(file)
		base := strings.TrimSuffix(file, ext)
		switch {
		case strings.HasSuffix(base, ".prelude") && (ext == ".star" || ext == ".lua"):
			name := strings.TrimSuffix(base, ".prelude")
			if !isPair(name) {
				t.Errorf("%s: prelude of no pair (want %s.star and %s.lua)", file, name, name)
			}
			if partner := base + "." + otherLang(ext[1:]); !have[partner] {
				t.Errorf("%s has no partner %s: both runs must see the same definitions", file, partner)
			}
		case ext == ".star" || ext == ".lua":
			if partner := base + "." + otherLang(ext[1:]); !have[partner] {
				t.Errorf("%s has no partner %s", file, partner)
			}
			if !have[base+".golden"] {
				t.Errorf("%s has no golden file %s.golden", file, base)
			}
		case ext == ".golden":
			if !isPair(base) {
				t.Errorf("%s: golden file of no pair", file)
			}
		default:
			t.Errorf("%s: unexpected file (want NAME.star, NAME.lua, NAME.golden, NAME.prelude.star, NAME.prelude.lua)", file)
		}
	}
	for _, name := range conformancePairs {
		if !isPair(name) {
			t.Errorf("pair %s is missing", name)
		}
	}
}
