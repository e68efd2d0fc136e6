package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
)

// FileName is the name of the file that makes a directory a skill.
const FileName = "SKILL.md"

// Limits from the Agent Skills specification.
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

// Skill is a skill found on disk. Its body stays on disk until loaded.
type Skill struct {
	Name        string
	Description string
	Dir         string // the skill's directory, absolute
	Path        string // its SKILL.md, absolute
}

// Parse reads the front matter of the SKILL.md at path and checks it: the
// name and the description must follow the Agent Skills rules, and the name
// must equal the name of the file's directory. Keys other than name and
// description are accepted and ignored. The error names the file and the
// rule broken. Parse does not read the body.
func Parse(path string) (Skill, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Skill{}, fmt.Errorf("skills: %s: %v", path, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return Skill{}, fmt.Errorf("skills: %w", err)
	}
	defer f.Close()
	lines, _, err := readFrontMatter(f)
	if err != nil {
		return Skill{}, fmt.Errorf("skills: %s: %v", abs, err)
	}
	s, err := check(lines, filepath.Base(filepath.Dir(abs)))
	if err != nil {
		return Skill{}, fmt.Errorf("skills: %s: %v", abs, err)
	}
	s.Dir, s.Path = filepath.Dir(abs), abs
	return s, nil
}

// check validates the front matter of the skill in directory dirName.
func check(lines []string, dirName string) (Skill, error) {
	fm, err := parseFrontMatter(lines)
	if err != nil {
		return Skill{}, err
	}
	name, ok := fm["name"]
	if !ok {
		return Skill{}, errors.New("the front matter has no name")
	}
	if !name.scalar {
		return Skill{}, errors.New("name must be a string")
	}
	if err := checkName(strings.TrimSpace(name.text)); err != nil {
		return Skill{}, err
	}
	n := strings.TrimSpace(name.text)
	if n != dirName {
		return Skill{}, fmt.Errorf("name %q must equal the name of its directory, %q", n, dirName)
	}
	desc, ok := fm["description"]
	if !ok {
		return Skill{}, errors.New("the front matter has no description")
	}
	if !desc.scalar {
		return Skill{}, errors.New("description must be a string")
	}
	d := strings.TrimSpace(desc.text)
	if d == "" {
		return Skill{}, errors.New("description is empty")
	}
	if c := utf8.RuneCountInString(d); c > MaxDescriptionLength {
		return Skill{}, fmt.Errorf("description has %d characters, more than the %d allowed", c, MaxDescriptionLength)
	}
	return Skill{Name: n, Description: d}, nil
}

// checkName reports which naming rule name breaks, if any.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > MaxNameLength:
		return fmt.Errorf("name %q has %d characters, more than the %d allowed", name, utf8.RuneCountInString(name), MaxNameLength)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q may hold only lowercase letters (a-z), digits and hyphens, not %q", name, r)
		}
	}
	switch {
	case name[0] == '-' || name[len(name)-1] == '-':
		return fmt.Errorf("name %q must not start or end with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q must not hold consecutive hyphens", name)
	}
	return nil
}

// Body returns the Markdown body of the SKILL.md at path: what follows the
// front matter, without leading and trailing blank space.
func Body(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	_, n, err := readFrontMatter(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("skills: %s: %v", path, err)
	}
	return strings.TrimSpace(string(data[min(n, len(data)):])), nil
}

// Config configures the skills extension. The zero value of every field is
// the default.
type Config struct {
	// Dirs are searched in order; each subdirectory holding SKILL.md is a
	// skill. A directory that does not exist is skipped.
	Dirs []string
	// Warn receives warnings: invalid skills, names found twice,
	// directories that cannot be read. nil writes them to standard error.
	Warn func(msg string)
}

// DefaultDirs returns where skills are looked for: workDir/.agentsh/skills
// first (when workDir is not empty), then $XDG_CONFIG_HOME/agentsh/skills,
// or ~/.config/agentsh/skills when XDG_CONFIG_HOME is unset or not an
// absolute path (when the home directory is unknown, it is left out).
func DefaultDirs(workDir string) []string {
	var dirs []string
	if workDir != "" {
		dirs = append(dirs, filepath.Join(workDir, ".agentsh", "skills"))
	}
	if c := os.Getenv("XDG_CONFIG_HOME"); c != "" && filepath.IsAbs(c) {
		dirs = append(dirs, filepath.Join(c, "agentsh", "skills"))
	} else if home, err := os.UserHomeDir(); err == nil && home != "" {
		dirs = append(dirs, filepath.Join(home, ".config", "agentsh", "skills"))
	}
	return dirs
}

// Extension offers skills to the model: their names and descriptions in the
// system prompt and the skill tool to load one. Create it with New. Its
// methods are safe to call concurrently; the directories are searched once,
// by Init or by the first method that needs the skills.
type Extension struct {
	cfg Config

	once   sync.Once
	skills []Skill // sorted by name
	byName map[string]Skill
}

var (
	_ core.Extension      = (*Extension)(nil)
	_ core.Initializer    = (*Extension)(nil)
	_ core.PromptProvider = (*Extension)(nil)
	_ core.ToolProvider   = (*Extension)(nil)
)

// New returns the skills extension for cfg. Nothing is read until Init or
// the first use.
func New(cfg Config) *Extension {
	return &Extension{cfg: cfg}
}

// Name is "skills".
func (x *Extension) Name() string { return "skills" }

// Init searches the directories. Problems with single skills or
// directories are warnings, not errors: a bad skill never stops the agent.
func (x *Extension) Init(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x.once.Do(x.scan)
	return nil
}

// Skills returns the skills found, sorted by name.
func (x *Extension) Skills() []Skill {
	x.once.Do(x.scan)
	return append([]Skill(nil), x.skills...)
}

// Load returns the body of the named skill, read from disk now.
func (x *Extension) Load(name string) (string, error) {
	x.once.Do(x.scan)
	s, ok := x.byName[name]
	if !ok {
		if len(x.skills) == 0 {
			return "", fmt.Errorf("unknown skill %q: no skills are available", name)
		}
		names := make([]string, len(x.skills))
		for i, s := range x.skills {
			names[i] = s.Name
		}
		return "", fmt.Errorf("unknown skill %q; available skills: %s", name, strings.Join(names, ", "))
	}
	return Body(s.Path)
}

// SystemPrompt lists each skill's name and description, sorted by name, and
// tells the model to load one with the skill tool; "" when there are none.
func (x *Extension) SystemPrompt() string {
	x.once.Do(x.scan)
	if len(x.skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n\n")
	b.WriteString("Skills hold instructions for particular tasks. When a task matches a skill's description, " +
		"call the `skill` tool with the skill's name to load its instructions, then follow them. " +
		"Load a skill only when you need it. The available skills:\n\n")
	for _, s := range x.skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Tools returns the skill tool, or nothing when there are no skills.
func (x *Extension) Tools() []core.Tool {
	x.once.Do(x.scan)
	if len(x.skills) == 0 {
		return nil
	}
	return []core.Tool{{
		Name: "skill",
		Description: "Loads a skill: returns the full instructions of the named skill. " +
			"The available skills, and when to use each, are listed in the system prompt.",
		Parameters:      json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed in the system prompt."}},"required":["name"]}`),
		ConcurrencySafe: core.Bool(true),
		Idempotent:      true,
		ReadOnly:        true,
		Func:            x.call,
	}}
}

func (x *Extension) call(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, fmt.Errorf("skill: %s must be a string, got %s", te.Field, te.Value)
		}
		return nil, fmt.Errorf("skill: %v", err)
	}
	if args.Name == nil || *args.Name == "" {
		return nil, errors.New("skill: name is required")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := x.Load(*args.Name)
	if err != nil {
		return nil, fmt.Errorf("skill: %w", err)
	}
	s := x.byName[*args.Name]
	if body == "" {
		body = "(This skill has no instructions beyond its description.)"
	}
	return fmt.Sprintf("Skill %q, from %s (relative paths in it are relative to that directory):\n\n%s", s.Name, s.Dir, body), nil
}

func (x *Extension) warn(msg string) {
	if x.cfg.Warn != nil {
		x.cfg.Warn(msg)
		return
	}
	fmt.Fprintf(os.Stderr, "warning: %s\n", msg)
}

// scan searches the directories in order.
func (x *Extension) scan() {
	x.byName = map[string]Skill{}
	for _, dir := range x.cfg.Dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			x.warn(fmt.Sprintf("skills: cannot read the skills directory %s: %v", dir, unwrapPathError(err)))
			continue
		}
		for _, e := range entries {
			sub := filepath.Join(dir, e.Name())
			fi, err := os.Stat(sub)
			if err != nil {
				x.warn(fmt.Sprintf("skills: %v; skipping it", err))
				continue
			}
			if !fi.IsDir() {
				continue // a file beside the skills
			}
			path := filepath.Join(sub, FileName)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			s, err := Parse(path)
			if err != nil {
				x.warn(err.Error() + "; skipping this skill")
				continue
			}
			if first, dup := x.byName[s.Name]; dup {
				x.warn(fmt.Sprintf("skills: %s: skill %q is already defined by %s; skipping this one", s.Path, s.Name, first.Path))
				continue
			}
			x.byName[s.Name] = s
			x.skills = append(x.skills, s)
		}
	}
	sort.Slice(x.skills, func(i, j int) bool { return x.skills[i].Name < x.skills[j].Name })
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
