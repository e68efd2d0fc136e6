package skills_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent/skills"
)

// writeSkill writes dir/name/SKILL.md and returns its path.
func writeSkill(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name, skills.FileName)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func skillFile(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

func TestParseValid(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		dirName, content, description string
	}{
		"plain": {"pdf-processing", skillFile("pdf-processing", "Extracts text from PDFs.", "# Body\n"), "Extracts text from PDFs."},
		"other keys": {"a1", `---
# a comment
license: Apache-2.0
name: a1
compatibility: Needs git
metadata:
  author: example
  version: "1.0"
allowed-tools: Bash(git:*) Read
description: "Quoted: with \"escapes\" \u00e9" # trailing comment
---
body`, `Quoted: with "escapes" é`},
		"single quoted":      {"x", "---\nname: 'x'\ndescription: 'it''s here'\n---\n", "it's here"},
		"folded":             {"folded", "---\nname: folded\ndescription: >-\n  Line one\n  line two.\n\n  Second paragraph.\n---\n", "Line one line two.\nSecond paragraph."},
		"literal":            {"literal", "---\nname: literal\ndescription: |\n  one\n  two\n---\n", "one\ntwo"},
		"multi-line plain":   {"ml", "---\nname: ml\ndescription: starts here\n  and goes on\n---\n", "starts here and goes on"},
		"crlf and bom":       {"crlf", "\uFEFF---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---\r\nbody\r\n", "Windows line ends."},
		"64 characters":      {strings.Repeat("a", 64), skillFile(strings.Repeat("a", 64), "Long name.", ""), "Long name."},
		"1024 characters":    {"d", skillFile("d", strings.Repeat("é", 1024), ""), strings.Repeat("é", 1024)},
		"digits and hyphens": {"a-1-b2", skillFile("a-1-b2", "Fine.", ""), "Fine."},
	}
	for label, c := range cases {
		t.Run(label, func(t *testing.T) {
			p := writeSkill(t, dir, c.dirName, c.content)
			s, err := skills.Parse(p)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := skills.Skill{Name: c.dirName, Description: c.description, Dir: filepath.Dir(p), Path: p}
			if s != want {
				t.Errorf("Parse = %+v, want %+v", s, want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	cases := []struct {
		label, dirName, content, rule string
	}{
		{"uppercase", "PDF", skillFile("PDF", "d", ""), "lowercase"},
		{"underscore", "a_b", skillFile("a_b", "d", ""), "lowercase"},
		{"space", "a b", skillFile("a b", "d", ""), "lowercase"},
		{"non-ASCII", "café", skillFile("café", "d", ""), "lowercase"},
		{"leading hyphen", "-pdf", skillFile("-pdf", "d", ""), "start or end with a hyphen"},
		{"trailing hyphen", "pdf-", skillFile("pdf-", "d", ""), "start or end with a hyphen"},
		{"consecutive hyphens", "pdf--x", skillFile("pdf--x", "d", ""), "consecutive hyphens"},
		{"65 characters", strings.Repeat("a", 65), skillFile(strings.Repeat("a", 65), "d", ""), "more than the 64 allowed"},
		{"empty name", "e", "---\nname: \"\"\ndescription: d\n---\n", "name is empty"},
		{"missing name", "m", "---\ndescription: d\n---\n", "no name"},
		{"name not a string", "n", "---\nname:\n  - a\ndescription: d\n---\n", "name must be a string"},
		{"name differs from dir", "pdf", skillFile("pdf-tools", "d", ""), `must equal the name of its directory, "pdf"`},
		{"missing description", "md", "---\nname: md\n---\n", "no description"},
		{"empty description", "ed", "---\nname: ed\ndescription:\n---\n", "description is empty"},
		{"blank description", "bd", "---\nname: bd\ndescription: '  '\n---\n", "description is empty"},
		{"null description", "nd", "---\nname: nd\ndescription: ~\n---\n", "description is empty"},
		{"long description", "ld", skillFile("ld", strings.Repeat("x", 1025), ""), "1025 characters, more than the 1024 allowed"},
		{"no front matter", "nf", "# Just Markdown\n", "no front matter"},
		{"empty file", "ef", "", "no front matter"},
		{"unclosed front matter", "uf", "---\nname: uf\ndescription: d\n", "no closing"},
		{"not key value", "kv", "---\nname: kv\njust text\n---\n", `want "key: value"`},
		{"duplicate key", "dk", "---\nname: dk\nname: dk\ndescription: d\n---\n", "repeats line 2"},
		{"unclosed quote", "uq", "---\nname: uq\ndescription: \"open\n---\n", "missing closing"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			p := writeSkill(t, dir, c.dirName, c.content)
			_, err := skills.Parse(p)
			if err == nil {
				t.Fatalf("Parse succeeded, want an error about %q", c.rule)
			}
			if !strings.Contains(err.Error(), c.rule) || !strings.Contains(err.Error(), p) {
				t.Errorf("Parse error %q does not name the file and %q", err, c.rule)
			}
		})
	}
	if _, err := skills.Parse(filepath.Join(dir, "none", skills.FileName)); err == nil {
		t.Error("Parse of a missing file succeeded")
	}
}

// install creates an extension over dirs, initialises it and returns it
// with the warnings it gave.
func install(t *testing.T, dirs ...string) (*skills.Extension, []string) {
	t.Helper()
	var warnings []string
	x := skills.New(skills.Config{Dirs: dirs, Warn: func(m string) { warnings = append(warnings, m) }})
	if err := x.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x, warnings
}

func TestExtension(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	writeSkill(t, project, "zeta", skillFile("zeta", "Last by name.", "ZETA BODY: step one.\n"))
	writeSkill(t, project, "alpha", skillFile("alpha", "First by name,\n  folded.", "ALPHA BODY\n\nmore\n"))
	dupPath := writeSkill(t, user, "alpha", skillFile("alpha", "A second alpha.", "SHADOWED BODY"))
	badPath := writeSkill(t, user, "Bad", skillFile("Bad", "Uppercase.", "BAD BODY"))
	writeSkill(t, user, "mid", skillFile("mid", "In the middle.", "MID BODY"))
	if err := os.MkdirAll(filepath.Join(user, "not-a-skill"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	x, warnings := install(t, filepath.Join(project, "missing"), project, user)
	if x.Name() != "skills" {
		t.Errorf("Name() = %q", x.Name())
	}
	var names []string
	for _, s := range x.Skills() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "alpha mid zeta" {
		t.Errorf("skills = %s, want alpha mid zeta", got)
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings = %q, want 2", warnings)
	}
	joined := strings.Join(warnings, "\n")
	for _, s := range []string{dupPath, `"alpha" is already defined`, badPath, "lowercase"} {
		if !strings.Contains(joined, s) {
			t.Errorf("warnings %q do not mention %q", joined, s)
		}
	}

	prompt := x.SystemPrompt()
	for _, s := range []string{"`skill` tool", "- alpha: First by name, folded.", "- mid: In the middle.", "- zeta: Last by name."} {
		if !strings.Contains(prompt, s) {
			t.Errorf("prompt does not hold %q:\n%s", s, prompt)
		}
	}
	if a, m, z := strings.Index(prompt, "- alpha"), strings.Index(prompt, "- mid"), strings.Index(prompt, "- zeta"); !(a < m && m < z) {
		t.Errorf("prompt is not sorted by name:\n%s", prompt)
	}
	for _, s := range []string{"BODY", "step one", "Bad", "second alpha"} {
		if strings.Contains(prompt, s) {
			t.Errorf("prompt holds %q:\n%s", s, prompt)
		}
	}

	tools := x.Tools()
	if len(tools) != 1 {
		t.Fatalf("Tools() = %d tools, want 1", len(tools))
	}
	tool := tools[0]
	if tool.Name != "skill" || tool.ConcurrencySafe == nil || !*tool.ConcurrencySafe || !tool.Idempotent {
		t.Errorf("tool = %s safe=%v idempotent=%v", tool.Name, tool.ConcurrencySafe, tool.Idempotent)
	}
	var schema struct {
		Properties map[string]struct{ Type string } `json:"properties"`
		Required   []string                         `json:"required"`
	}
	if err := json.Unmarshal(tool.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["name"].Type != "string" || len(schema.Required) != 1 || schema.Required[0] != "name" {
		t.Errorf("schema = %s", tool.Parameters)
	}

	// The body is read when the tool is called.
	writeSkill(t, project, "alpha", skillFile("alpha", "First by name.", "ALPHA BODY, edited\n"))
	out, err := tool.Func(context.Background(), json.RawMessage(`{"name":"alpha"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := out.(string)
	if !strings.HasSuffix(s, "\n\nALPHA BODY, edited") || !strings.Contains(s, filepath.Join(project, "alpha")) {
		t.Errorf("skill alpha = %q", s)
	}

	_, err = tool.Func(context.Background(), json.RawMessage(`{"name":"nope"}`))
	if err == nil || !strings.Contains(err.Error(), `unknown skill "nope"`) || !strings.Contains(err.Error(), "alpha, mid, zeta") {
		t.Errorf("unknown skill: got %v, want an error listing alpha, mid, zeta", err)
	}
	for _, args := range []string{`{}`, `{"name":""}`, `{"name":3}`} {
		if _, err := tool.Func(context.Background(), json.RawMessage(args)); err == nil {
			t.Errorf("skill %s succeeded", args)
		}
	}
}

func TestNoSkills(t *testing.T) {
	x, warnings := install(t, filepath.Join(t.TempDir(), "missing"), t.TempDir())
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
	if p := x.SystemPrompt(); p != "" {
		t.Errorf("SystemPrompt() = %q, want empty", p)
	}
	if tools := x.Tools(); len(tools) != 0 {
		t.Errorf("Tools() = %d tools, want none", len(tools))
	}
	if _, err := x.Load("any"); err == nil || !strings.Contains(err.Error(), "no skills are available") {
		t.Errorf("Load: got %v", err)
	}
}

func TestUnreadableDirWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, warnings := install(t, file)
	if len(warnings) != 1 || !strings.Contains(warnings[0], file) {
		t.Errorf("warnings = %q, want one naming %s", warnings, file)
	}
}

func TestBody(t *testing.T) {
	p := writeSkill(t, t.TempDir(), "b", "---\nname: b\ndescription: d\n---\n\n# Title\n\n---\nstill body\n")
	got, err := skills.Body(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Title\n\n---\nstill body"; got != want {
		t.Errorf("Body = %q, want %q", got, want)
	}
}

func TestDefaultDirs(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/config")
	got := skills.DefaultDirs("/work")
	want := []string{filepath.Join("/work", ".agentsh", "skills"), filepath.Join("/config", "agentsh", "skills")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("DefaultDirs = %q, want %q", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	got = skills.DefaultDirs("")
	want = []string{filepath.Join("/home/u", ".config", "agentsh", "skills")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("DefaultDirs without XDG_CONFIG_HOME = %q, want %q", got, want)
	}
}

func TestBrokenLinkWarns(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "ok", skillFile("ok", "Fine.", ""))
	link := filepath.Join(dir, "gone")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	x, warnings := install(t, dir)
	if len(warnings) != 1 || !strings.Contains(warnings[0], link) {
		t.Errorf("warnings = %q, want one naming %s", warnings, link)
	}
	if len(x.Skills()) != 1 {
		t.Errorf("skills = %v, want ok", x.Skills())
	}
}
