package core

// Effects: what a call will do, in one vocabulary every tool shares, so
// that a policy guards what happens (a file written, a command run)
// whatever the tool is called and however its arguments were spelled.
// A tool declares its effects argument by argument (Tool.Effects); the
// executor makes those arguments canonical and lists the call's Effects
// before any hook runs.

// ArgKind says what a tool does with one of its arguments.
type ArgKind string

const (
	// ArgRead is a path the tool reads: a file, or a directory it lists
	// or searches.
	ArgRead ArgKind = "read"
	// ArgWrite is a path the tool creates or changes.
	ArgWrite ArgKind = "write"
	// ArgDelete is a path the tool removes.
	ArgDelete ArgKind = "delete"
	// ArgDir is the directory the tool's shell commands run in (bash's
	// workdir); "." when absent.
	ArgDir ArgKind = "dir"
	// ArgShell is a bash command line.
	ArgShell ArgKind = "shell"
	// ArgCode is program text an interpreter runs: the one the call's
	// "language" argument names, else ArgEffect.Language. Code in a
	// shell language (bash, sh) is a shell command line.
	ArgCode ArgKind = "code"
	// ArgURL is a URL the tool fetches: its host is reached.
	ArgURL ArgKind = "url"
	// ArgPatch is a patch in the apply_patch format: the files it adds,
	// updates, moves and deletes are written and deleted.
	ArgPatch ArgKind = "patch"
)

// ArgKinds lists every kind, in the order of the constants.
var ArgKinds = []ArgKind{ArgRead, ArgWrite, ArgDelete, ArgDir, ArgShell, ArgCode, ArgURL, ArgPatch}

// IsPath reports whether arguments of kind k are paths, which the
// executor makes canonical.
func (k ArgKind) IsPath() bool {
	return k == ArgRead || k == ArgWrite || k == ArgDelete || k == ArgDir
}

// ArgEffect declares what a tool does with one argument.
type ArgEffect struct {
	// Arg names a top-level argument: a string, or an array of strings
	// (each one a path, a command or a URL).
	Arg  string
	Kind ArgKind
	// Default is the argument's value when the call leaves it out ("."
	// for a search of the working directory); "" gives no effect then.
	// A missing ArgDir is always "." (the working directory).
	Default string
	// Language names the interpreter of an ArgCode argument for calls
	// without a "language" argument ("python3", "node", ...).
	Language string
}

// Effects is what one call will do. Paths are canonical: relative to
// the call's working directory, slash-separated, clean ("." is the
// directory itself). Lists keep the order of the declarations and of the
// arguments, and are empty, never nil, in a call's Effects.
type Effects struct {
	Reads   []string   `json:"reads"`   // files read, directories listed or searched
	Writes  []string   `json:"writes"`  // files created or changed
	Deletes []string   `json:"deletes"` // files removed (a move removes its source)
	Shell   []ShellRun `json:"shell"`   // bash command lines, with where they run
	Code    []CodeRun  `json:"code"`    // program text run by an interpreter
	Hosts   []string   `json:"hosts"`   // network hosts reached (lowercase, without port)
	// Unknown says nothing is known of what the call does: the tool is
	// not registered (another agent's tool nobody mapped), so it may do
	// anything.
	Unknown bool `json:"unknown"`
}

// ShellRun is one bash command line a call runs, in Dir (canonical).
type ShellRun struct {
	Command string `json:"command"`
	Dir     string `json:"dir"`
}

// CodeRun is program text a call gives an interpreter.
type CodeRun struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

// ShellLanguages are the languages whose code is a shell command line.
var ShellLanguages = map[string]bool{"bash": true, "sh": true}
