// Package skills gives the agent Agent Skills: directories of instructions
// the model loads when a task calls for them.
//
// A skill is a directory holding SKILL.md: YAML front matter between "---"
// lines, then a Markdown body with the instructions.
//
//	---
//	name: pdf-processing
//	description: Extracts text and tables from PDF files. Use it when the
//	  user works with PDFs.
//	license: Apache-2.0
//	---
//	# PDF processing
//	...
//
// The front matter needs name and description; other keys (license,
// compatibility, metadata, allowed-tools, ...) are accepted and ignored.
// The name has 1 to 64 characters, lowercase letters (a-z), digits and
// hyphens, neither starts nor ends with a hyphen, has no two hyphens in a
// row, and equals the name of the skill's directory. The description is not
// empty and has at most 1024 characters.
//
// The extension searches each of its directories, in order, for
// subdirectories holding SKILL.md. A name found twice keeps the first; an
// invalid skill is skipped. Both are reported through a warning naming the
// file, never silently. A directory that does not exist holds no skills.
//
//	ext := skills.New(skills.Config{Dirs: skills.DefaultDirs(workDir)})
//	err := exec.Install(ctx, ext)
//
// Only names and descriptions go into the system prompt. The model loads a
// skill's body with the skill tool, which reads SKILL.md from disk at that
// moment.
//
// The front matter is YAML (go.yaml.in/yaml/v3), of at most 64 KiB. Only
// its top-level keys are looked at: name and description must be strings
// (an alias of one counts); nested mappings and sequences under other keys
// are accepted and skipped. Aliases are never expanded, so a document
// built to multiply itself through them costs only its size. An error
// names the file, the line in it and, where it can, the key.
package skills
