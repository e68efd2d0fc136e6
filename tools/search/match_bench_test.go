package search

import (
	"strings"
	"testing"
)

// benchGitignore is the .gitignore of a Go module with a Node front end,
// as such projects write it.
const benchGitignore = `# Go
*.exe
*.exe~
*.dll
*.so
*.dylib
*.test
*.out
go.work
go.work.sum
/vendor/
/bin/
coverage.*
*.coverprofile
profile.cov

# Node
node_modules/
npm-debug.log*
yarn-debug.log*
yarn-error.log*
.pnpm-debug.log*
/dist
/build
/coverage
.nyc_output
*.tsbuildinfo
.npm
.eslintcache
.next/
out/
.cache/
.parcel-cache
.env
.env.*.local
!.env.example
*.log
logs
*.pid
*.pid.lock

# editors and systems
.DS_Store
Thumbs.db
.idea/
.vscode/*
!.vscode/settings.json
*.swp
*~
[._]*.s[a-v][a-z]
**/testdata/golden/*.tmp
docs/**/_build/
web/src/**/*.generated.ts
`

// benchPaths returns the entries a walk of such a project checks: every
// directory on the way and the files in them.
func benchPaths() (rels, names []string, dirs []bool) {
	dirList := []string{
		"", "cmd/agentsh", "internal/search", "internal/search/testdata/golden", "pkg/util",
		"web", "web/src", "web/src/components", "web/src/pages/api", "web/node_modules",
		"docs", "docs/guide", "docs/guide/_build", ".vscode", "dist", "build/out",
	}
	files := []string{
		"main.go", "main_test.go", "search.go", "ignore.go", "doc.go", "go.mod", "go.sum",
		"README.md", "Makefile", "index.tsx", "Button.tsx", "Button.module.css", "api.generated.ts",
		"package.json", "tsconfig.json", "yarn-error.log", "app.exe", ".env", ".env.local",
		".env.example", "coverage.out", "notes.txt~", "x.swp", "case.tmp", "settings.json",
	}
	for _, d := range dirList {
		if d != "" {
			rels = append(rels, d)
			names = append(names, d[strings.LastIndexByte(d, '/')+1:])
			dirs = append(dirs, true)
		}
		for _, f := range files {
			rel := f
			if d != "" {
				rel = d + "/" + f
			}
			rels = append(rels, rel)
			names = append(names, f)
			dirs = append(dirs, false)
		}
	}
	return rels, names, dirs
}

// BenchmarkMatchGitignore measures the ignore rules of a realistic
// .gitignore over the entries of a project: parsing once, then one
// ignored() call per entry (ns/op is per entry).
func BenchmarkMatchGitignore(b *testing.B) {
	rels, names, dirs := benchPaths()
	stack := ignoreStack{}.push(&ignoreFrame{patterns: parseGitignore([]byte(benchGitignore))})
	ignored := 0
	for i := range rels {
		if stack.ignored(rels[i], names[i], dirs[i]) {
			ignored++
		}
	}
	if ignored == 0 || ignored == len(rels) {
		b.Fatalf("%d of %d entries ignored: the benchmark measures nothing useful", ignored, len(rels))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := i % len(rels)
		stack.ignored(rels[j], names[j], dirs[j])
	}
}

// BenchmarkMatchParseGitignore measures reading the rules themselves,
// which a walk does once for every directory that has a .gitignore.
func BenchmarkMatchParseGitignore(b *testing.B) {
	data := []byte(benchGitignore)
	b.ReportAllocs()
	for b.Loop() {
		parseGitignore(data)
	}
}
