package bashcmd

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// errUnknown stops reading a construct once a reason has been given for
// it; reading goes on with the next node.
var errUnknown = errors.New("shell: cannot tell what runs")

// analyser is one Parse call.
type analyser struct {
	out  *Analysis
	at   int
	vars vars // gathered over the whole command line
	dirs dirs
	full bool // MaxCommands commands are listed
	// names are the variables in out.Assigned.
	names map[string]bool
}

// assigned notes a variable the command line gives a value.
func (a *analyser) assigned(name string) {
	if a.names[name] {
		return
	}
	if a.names == nil {
		a.names = map[string]bool{}
	}
	a.names[name] = true
	a.out.Assigned = append(a.out.Assigned, name)
}

func (a *analyser) next() int { a.at++; return a.at - 1 }

// reason records an Unknown found through hops.
func (a *analyser) reason(hops []frame, syntaxErr bool, format string, args ...any) error {
	via := materialize(hops)
	a.out.Unknown = append(a.out.Unknown, Unknown{
		Reason: arithPrefix(via) + fmt.Sprintf(format, args...),
		Via:    via,
		Syntax: syntaxErr,
		At:     a.next(),
	})
	return errUnknown
}

// arithPrefix names the arithmetic text a finding is in: the outermost
// of each command line, outer ones first.
func arithPrefix(via []Hop) string {
	var sb strings.Builder
	inLine := false
	for _, h := range via {
		switch h.Kind {
		case Line:
			inLine = false
		case Arithmetic:
			if !inLine {
				sb.WriteString(h.Name + ": ")
				inLine = true
			}
		}
	}
	return sb.String()
}

// frame is a Hop on the stack, its name computed only when a finding
// needs it.
type frame struct {
	kind HopKind
	name string
	fn   func() string
}

func materialize(hops []frame) []Hop {
	if len(hops) == 0 {
		return nil
	}
	out := make([]Hop, len(hops))
	for i, f := range hops {
		name := f.name
		if f.fn != nil {
			name = f.fn()
		}
		out[i] = Hop{Kind: f.kind, Name: name}
	}
	return out
}

// script reads a command line; via says what runs it ("" at the top, or
// e.g. `bash -c`), hops how it was reached, upstream what its standard
// input is piped from.
func (a *analyser) script(src string, depth int, via string, hops []frame, upstream []string) error {
	if depth > MaxNesting {
		return a.reason(hops, false, "command lines nested more than %d levels deep (in %s) are not read", MaxNesting, via)
	}
	what := "the command line"
	if via != "" {
		what += " run by " + via
	}
	f, err := parseBash(src)
	if le, ok := isLimit(err); ok {
		return a.reason(hops, false, "%s", cannotRead(what, le))
	}
	if err != nil {
		if via != "" {
			return a.reason(hops, true, "cannot parse the command line run by %s: %v", via, err)
		}
		return a.reason(hops, true, "does not parse: %v", err)
	}
	s := &scope{analyser: a, src: src, depth: depth, via: via, hops: hops, upstream: upstream,
		funcs: map[string]bool{}}
	n := s.declared(f)
	if err := a.room(n); err != nil {
		return a.reason(hops, false, "%s", cannotRead(what, err))
	}
	// Room for the commands at once: a long command line grows them
	// once, not by a quarter at a time.
	s.seen = make(map[syntax.Command]bool, n.commands)
	a.out.Commands = slices.Grow(a.out.Commands, n.commands)
	s.walk(f)
	s.functions()
	return nil
}

// scope is one command line being read.
type scope struct {
	*analyser
	src   string // the text the nodes being read were parsed from
	depth int
	via   string
	funcs map[string]bool // functions declared in this command line
	order []string        // their names, in order of declaration
	calls map[string]map[string]bool
	seen  map[syntax.Command]bool
	arith int // depth of arithmetic text being read (see arithText)
	pipes map[*syntax.Stmt]pipeMark
	left  map[int]*pipeNames // by pipeMark.start
	deep  bool               // MaxDepth was reached

	// The context of the node being read, saved and restored around
	// every node walk descends into.
	hops     []frame
	upstream []string
	redirs   []Redirect // of the statement whose command is being read
	inFunc   string
}

// pipeMark is the right side of a pipe: the commands from start on are
// its left side.
type pipeMark struct {
	start int
	base  []string
}

// pipeNames are the names of the commands from a pipeMark's start on, up
// to scanned: a pipeline a | b | c nests as (a | b) | c, so the left
// sides of its pipes share their start, and each is read once.
type pipeNames struct {
	scanned int
	names   []string
	seen    map[string]bool
}

type context struct {
	hops     int
	upstream []string
	redirs   []Redirect
	inFunc   string
}

func (s *scope) save() context {
	return context{len(s.hops), s.upstream, s.redirs, s.inFunc}
}

func (s *scope) restore(c context) {
	s.hops, s.upstream, s.redirs, s.inFunc = s.hops[:c.hops], c.upstream, c.redirs, c.inFunc
}

// push adds a hop. The stack is copied when shared with an outer
// command line, so that a nested scope never writes into it.
func (s *scope) push(f frame) {
	s.hops = append(s.hops[:len(s.hops):len(s.hops)], f)
}

func (s *scope) unknown(format string, args ...any) error {
	return s.reason(s.hops, false, format, args...)
}

// declared notes the functions f declares, and counts its simple
// commands (wrappers and nested command lines add more) and
// redirections.
func (s *scope) declared(f *syntax.File) (n counts) {
	syntax.Walk(f, func(node syntax.Node) bool {
		switch node := node.(type) {
		case *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause:
			n.commands++
		case *syntax.Redirect:
			n.redirects++
		case *syntax.FuncDecl:
			if node.Name != nil {
				if !s.funcs[node.Name.Value] {
					s.order = append(s.order, node.Name.Value)
				}
				s.funcs[node.Name.Value] = true
			}
		}
		return true
	})
	return n
}

// functions lists the functions of the command line, with whether each
// calls itself through the calls seen in their bodies.
func (s *scope) functions() {
	recursive := onCycle(s.order, s.calls)
	for _, name := range s.order {
		s.out.Functions = append(s.out.Functions, Function{Name: name, Recursive: recursive[name]})
	}
}

// onCycle returns the functions that calling calls again: those in a
// strongly connected component of the calls with more than one function,
// or that call themselves. It is Tarjan's algorithm with a stack of its
// own, so it takes linear time and a long chain of calls does not
// deepen the goroutine's stack.
func onCycle(funcs []string, calls map[string]map[string]bool) map[string]bool {
	type visit struct {
		name  string
		calls []string
		next  int
	}
	index, low := map[string]int{}, map[string]int{}
	onStack, out := map[string]bool{}, map[string]bool{}
	var stack []string
	var work []visit
	enter := func(name string) {
		index[name], low[name] = len(index), len(index)
		stack = append(stack, name)
		onStack[name] = true
		callees := make([]string, 0, len(calls[name]))
		for g := range calls[name] {
			callees = append(callees, g)
		}
		work = append(work, visit{name: name, calls: callees})
	}
	for _, root := range funcs {
		if _, ok := index[root]; ok {
			continue
		}
		enter(root)
		for len(work) > 0 {
			v := &work[len(work)-1]
			if v.next < len(v.calls) {
				g := v.calls[v.next]
				v.next++
				if _, ok := index[g]; !ok {
					enter(g)
				} else if onStack[g] {
					low[v.name] = min(low[v.name], index[g])
				}
				continue
			}
			name := v.name
			work = work[:len(work)-1]
			if len(work) > 0 {
				parent := work[len(work)-1].name
				low[parent] = min(low[parent], low[name])
			}
			if low[name] != index[name] {
				continue
			}
			i := len(stack) - 1
			for stack[i] != name {
				i--
			}
			component := stack[i:]
			stack = stack[:i]
			for _, f := range component {
				onStack[f] = false
				out[f] = len(component) > 1 || calls[f][f]
			}
		}
	}
	return out
}

// walk reads every node of n.
func (s *scope) walk(n syntax.Node) {
	var stack []context
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			s.restore(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			return true
		}
		if len(s.hops) >= MaxDepth && nests(n) {
			s.tooDeep()
			return false
		}
		stack = append(stack, s.save())
		s.enter(n)
		_ = s.node(n) // a reason is recorded; the children are read all the same
		return true
	})
}

// nests reports whether n adds a hop.
func nests(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
		return true
	}
	return false
}

// tooDeep gives the reason for constructs nested deeper than MaxDepth,
// once per command line.
func (s *scope) tooDeep() error {
	if !s.deep {
		s.deep = true
		s.unknown("constructs nested more than %d levels deep are not read", MaxDepth)
	}
	return errUnknown
}

// enter sets the context of the nodes below n.
func (s *scope) enter(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.Stmt:
		if m, ok := s.pipes[n]; ok {
			s.upstream = s.pipeFrom(m)
		}
		s.redirs = nil
		if len(n.Redirs) > 0 {
			s.redirs = make([]Redirect, 0, len(n.Redirs))
			via := materialize(s.hops)
			for _, r := range n.Redirs {
				rd := s.redirect(r, via)
				if rd.Fd == 0 && !rd.Write {
					s.upstream = nil // standard input is the redirection, not the pipe
				}
				s.redirs = append(s.redirs, rd)
			}
			s.out.Redirects = append(s.out.Redirects, s.redirs...)
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			if s.pipes == nil {
				s.pipes = map[*syntax.Stmt]pipeMark{}
			}
			s.pipes[n.Y] = pipeMark{start: len(s.out.Commands), base: s.upstream}
		}
	case *syntax.CmdSubst:
		name := "$( )"
		if n.Backquotes {
			name = "` `"
		}
		s.push(frame{kind: Substitution, name: name})
		s.upstream = nil
	case *syntax.ProcSubst:
		name := "<( )"
		if n.Op == syntax.CmdOut {
			name = ">( )"
		}
		s.push(frame{kind: Substitution, name: name})
		s.upstream = nil
	case *syntax.FuncDecl:
		if n.Name != nil {
			s.push(frame{kind: Body, name: n.Name.Value + "()"})
			s.inFunc = n.Name.Value
		}
	}
}

// pipeFrom is the upstream of the right side of a pipe: m.base followed
// by the names of the commands on its left side not in it yet, at most
// MaxPipeFrom.
func (s *scope) pipeFrom(m pipeMark) []string {
	if s.left == nil {
		s.left = map[int]*pipeNames{}
	}
	p := s.left[m.start]
	if p == nil {
		p = &pipeNames{scanned: m.start, seen: map[string]bool{}}
		s.left[m.start] = p
	}
	for ; p.scanned < len(s.out.Commands) && len(p.names) < MaxPipeFrom; p.scanned++ {
		c := &s.out.Commands[p.scanned]
		name := c.Name
		if name == "" {
			name = c.Args[0].Text
		}
		if !p.seen[name] {
			p.seen[name] = true
			p.names = append(p.names, name)
		}
	}
	out := append(make([]string, 0, len(m.base)+len(p.names)), m.base...)
	for _, n := range p.names {
		if len(out) >= MaxPipeFrom {
			break
		}
		if !contains(m.base, n) {
			out = append(out, n)
		}
	}
	return out
}

func (s *scope) node(n syntax.Node) error {
	switch n := n.(type) {
	case *syntax.Stmt:
		s.redirects(n.Redirs)
		switch cmd := n.Cmd.(type) {
		case *syntax.CallExpr:
			s.seen[cmd] = true
			return s.call(cmd, stdinOf(n.Redirs))
		case *syntax.DeclClause:
			s.seen[cmd] = true
			return s.declClause(cmd)
		case *syntax.LetClause:
			s.seen[cmd] = true
			return s.letClause(cmd)
		}
	case *syntax.CallExpr:
		if !s.seen[n] {
			return s.call(n, nil)
		}
	case *syntax.DeclClause:
		if !s.seen[n] {
			return s.declClause(n)
		}
	case *syntax.LetClause:
		if !s.seen[n] {
			return s.letClause(n)
		}
	case *syntax.ArithmCmd:
		return s.arithExpr(n.X)
	case *syntax.ArithmExp:
		return s.arithExpr(n.X)
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if e != nil {
				s.arithExpr(e)
			}
		}
	case *syntax.ForClause:
		return s.forVar(n)
	case *syntax.ParamExp:
		return s.paramExp(n)
	case *syntax.BinaryTest:
		return s.condTest(n)
	case *syntax.UnaryTest:
		return s.condVar(n)
	case *syntax.DblQuoted:
		if n.Dollar {
			return s.unknown(`cannot check $"...": bash translates it through a message catalog (TEXTDOMAIN) and expands the translation; use "..." instead`)
		}
	}
	return nil
}

func (s *scope) declClause(n *syntax.DeclClause) error {
	args := []arg{textArg(n.Variant.Value)}
	for _, a := range n.Args {
		args = append(args, s.assignArg(a))
	}
	s.record(args, "")
	return s.declare(n.Variant.Value, declArgs(n.Args))
}

func (s *scope) letClause(n *syntax.LetClause) error {
	args := []arg{textArg("let")}
	for _, e := range n.Exprs {
		args = append(args, arg{src: s.nodeText(e)})
	}
	s.record(args, "")
	for _, e := range n.Exprs {
		s.arithExpr(e)
	}
	return nil
}

// call reads a simple command: its assignments, then the command.
func (s *scope) call(call *syntax.CallExpr, in *stdin) error {
	for _, a := range call.Assigns {
		s.assignment(a)
	}
	if len(call.Args) == 0 {
		return nil
	}
	return s.argv(words(call.Args), in, "")
}

// record lists a command; via is the wrapper that runs it in this command
// line ("" if none).
func (s *scope) record(args []arg, via string) {
	if len(s.out.Commands) >= MaxCommands {
		s.tooMany()
		return
	}
	c := Command{Args: make([]Word, len(args)), Via: materialize(s.hops), Redirects: s.redirs, PipeFrom: s.upstream, At: s.next()}
	for i, a := range args {
		c.Args[i] = s.toWord(a)
	}
	name := args[0].val
	switch {
	case !args[0].lit:
	case strings.HasPrefix(name, "="):
		c.Args[0].Static = false // zsh's =cmd is a path lookup
	default:
		c.Name = baseName(name)
	}
	if via == "" && c.Args[0].Static && s.funcs[name] {
		c.Function = true
		if s.inFunc != "" {
			if s.calls == nil {
				s.calls = map[string]map[string]bool{}
			}
			if s.calls[s.inFunc] == nil {
				s.calls[s.inFunc] = map[string]bool{}
			}
			s.calls[s.inFunc][name] = true
		}
	}
	s.out.Commands = append(s.out.Commands, c)
}

// program lists a program a construct names to run later (hash -p,
// compgen -F, SHELL), as a command run by it.
func (s *scope) program(prog, by string) {
	mark := len(s.hops)
	s.push(frame{kind: Wrapper, name: by})
	s.record([]arg{{val: prog, lit: true, static: true}}, by)
	s.hops = s.hops[:mark]
}

// dynamic gives the reason for a word that decides what runs but is not
// literal.
func (s *scope) dynamic(w arg, what string) error {
	return s.unknown("cannot check %s: %s is not a literal word", what, shorten(s.text(w)))
}

// arg is a word of a simple command: its literal value when it has one.
type arg struct {
	val    string
	lit    bool   // the value means the same whatever the environment, for a command name
	static bool   // also as an argument: lit, and no ~ that bash expands
	assign bool   // it has a '=' whatever it expands to (NAME=$x)
	src    string // the word as written, for messages (see source)
	word   *syntax.Word
}

// source returns the word as written. It is printed only when a message
// needs it.
func (a arg) source() string {
	if a.src == "" && a.word != nil {
		return printWord(a.word)
	}
	return a.src
}

// toWord is the Word of an Analysis.
func (s *scope) toWord(a arg) Word {
	if a.static {
		return Word{Text: a.val, Static: true}
	}
	return Word{Text: s.text(a)}
}

// text is an arg as written: cut from the source, where printing it
// would cost as much as the word again at every level it is nested in.
func (s *scope) text(a arg) string {
	if a.src == "" && a.word != nil {
		return s.nodeText(a.word)
	}
	return a.source()
}

func words(ws []*syntax.Word) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		out[i] = wordArg(w)
	}
	return out
}

func wordArg(w *syntax.Word) arg {
	v, ok := literal(w)
	a := arg{val: v, lit: ok, static: ok && !expandsTilde(w), word: w}
	if ok {
		a.assign = strings.Contains(v, "=")
	} else if lit, isLit := w.Parts[0].(*syntax.Lit); isLit {
		a.assign = strings.Contains(lit.Value, "=")
	}
	return a
}

// textArg is a word a builtin or wrapper made of text.
func textArg(text string) arg { return arg{val: text, lit: true, static: true, src: text} }

// assignArg is an argument of a declaration as a word: static when it
// is NAME or NAME=literal.
func (s *scope) assignArg(a *syntax.Assign) arg {
	switch {
	case a.Naked && a.Name == nil && a.Value != nil:
		return wordArg(a.Value)
	case a.Name != nil && a.Index == nil && a.Array == nil:
		name := a.Name.Value
		if a.Append {
			name += "+"
		}
		if a.Naked {
			return textArg(name)
		}
		if a.Value == nil {
			return textArg(name + "=")
		}
		if w := wordArg(a.Value); w.static {
			return textArg(name + "=" + w.val)
		}
	}
	return arg{src: s.nodeText(a)}
}

// stdin is a literal script on a command's standard input.
type stdin struct {
	script string
	lit    bool
	src    string
}

// stdinOf returns the here-document or here-string a statement reads on
// standard input, if any.
func stdinOf(redirs []*syntax.Redirect) *stdin {
	var in *stdin
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				in = &stdin{script: "", lit: true}
				continue
			}
			v, ok := heredoc(r.Hdoc, quotedDelim(r.Word))
			in = &stdin{script: v, lit: ok, src: "a here-document"}
		case syntax.WordHdoc:
			v, ok := literal(r.Word)
			in = &stdin{script: v, lit: ok, src: printWord(r.Word)}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			in = &stdin{lit: false, src: "a redirection"}
		}
	}
	return in
}

// redirect is a redirection of an Analysis.
func (s *scope) redirect(r *syntax.Redirect, via []Hop) Redirect {
	rd := Redirect{Op: r.Op.String(), Via: via}
	input := false
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		input = true
	}
	if !input {
		rd.Fd = 1
	}
	if r.N != nil {
		if n, err := strconv.Atoi(r.N.Value); err == nil {
			rd.Fd = n
		} else {
			rd.Fd = -1
		}
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			v, ok := heredoc(r.Hdoc, quotedDelim(r.Word))
			if !ok {
				v = printWord(r.Hdoc)
			}
			rd.Target = Word{Text: v, Static: ok}
		} else {
			rd.Target = Word{Static: true}
		}
	default:
		rd.Target = s.toWord(wordArg(r.Word))
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrInOut, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		rd.Write = true
	case syntax.DplOut:
		rd.Write = !(rd.Target.Static && (rd.Target.Text == "-" || isDigits(strings.TrimSuffix(rd.Target.Text, "-"))))
	}
	return rd
}

// redirects reads redirections that assign a descriptor to a variable
// ({fd}>file): the name may have a subscript, which bash evaluates.
func (s *scope) redirects(redirs []*syntax.Redirect) {
	for _, r := range redirs {
		if r.N == nil || !strings.HasPrefix(r.N.Value, "{") || !strings.HasSuffix(r.N.Value, "}") {
			continue
		}
		v := r.N.Value[1 : len(r.N.Value)-1]
		s.varText(arg{val: v, lit: true, src: r.N.Value}, "the variable of the redirection "+r.N.Value)
	}
}

// argv reads a simple command and, for wrappers, the command it runs;
// via is the wrapper that runs it ("" if none).
func (s *scope) argv(args []arg, in *stdin, via string) error {
	mark := len(s.hops)
	defer func() { s.hops = s.hops[:mark] }()
	if via != "" {
		s.push(frame{kind: Wrapper, name: via})
	}
	for len(args) > 0 {
		a := args[0]
		s.record(args, via)
		if !a.lit {
			what := "the command name"
			if via != "" {
				what = "the command run by " + via
			}
			return s.dynamic(a, what)
		}
		if strings.HasPrefix(a.val, "=") {
			return s.dynamic(a, "the command name")
		}
		base := baseName(a.val)
		next, err := s.wrapped(base, args[1:], in)
		if err != nil || next == nil {
			return err
		}
		if len(s.hops) >= MaxDepth {
			return s.tooDeep()
		}
		s.push(frame{kind: Wrapper, name: base})
		args, via = next, base
	}
	return nil
}

// shorten cuts text for a reason.
func shorten(text string) string {
	const max = 200
	if len(text) <= max {
		return text
	}
	i := max
	for i > 0 && text[i]&0xc0 == 0x80 {
		i--
	}
	return text[:i] + "..."
}

// baseName is the name a command is matched by: /usr/bin/rm is rm.
func baseName(name string) string {
	if name == "" {
		return ""
	}
	return path.Base(strings.TrimRight(name, "/"))
}

// nested reads a command line run by a command.
func (s *scope) nested(src, via string) error {
	hops := append(s.hops[:len(s.hops):len(s.hops)], frame{kind: Line, name: via})
	if s.via != "" {
		via = via + " in " + s.via
	}
	return s.analyser.script(src, s.depth+1, via, hops, s.upstream)
}

// nodeText is n as written in the source.
func (s *scope) nodeText(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if n.Pos().IsValid() && start <= end && int(end) <= len(s.src) {
		return s.src[start:end]
	}
	return "(a word)"
}
