package main

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/peterh/liner"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
)

const (
	prompt     = ">>> "
	luaPrompt  = "lua> "
	contPrompt = "... "
)

// lineReader is where the REPL gets input: liner on a terminal, a plain
// reader otherwise. prompt returns io.EOF at the end of input and
// errAborted when the user pressed Ctrl-C at the prompt.
type lineReader interface {
	prompt(p string) (string, error)
	close()
}

var errAborted = errors.New("aborted")

// replSession is one interactive session.
type replSession struct {
	a       *app
	lang    string // the language of what is typed: starlark or lua
	lines   lineReader
	signals <-chan os.Signal // interrupts cancel the running evaluation
	exit    func(code int)   // os.Exit; ends a session stopped at the prompt

	mu     sync.Mutex
	cancel context.CancelFunc // of the running evaluation; nil at the prompt
	ending *stopped           // SIGTERM or SIGHUP: the session ends

	exited *script.Exit // exit(code) was called: the session ends with code
}

// prompt is the primary prompt of the session's language.
func (s *replSession) prompt() string {
	if s.lang == "lua" {
		return luaPrompt
	}
	return prompt
}

// langTitle names a language for people.
func langTitle(lang string) string {
	switch lang {
	case "lua":
		return "Lua"
	case "starlark":
		return "Starlark"
	}
	return lang
}

// repl runs the interactive loop until Ctrl-D or :quit.
func (a *app) repl() int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	s := &replSession{a: a, lang: a.opts.lang, signals: sig, exit: os.Exit}
	// SIGTERM and SIGHUP end the session as they end a run.
	term := newStopper(s.end, a.io.err, syscall.SIGTERM, syscall.SIGHUP)
	term.start()
	defer term.stop()
	if isTerminal(a.io.in) && isTerminal(os.Stdout) {
		lr := newLinerReader(s.complete)
		s.lines = lr
		pa := &promptApprover{ask: lr.ask, out: terminalSafe(a.io.out)}
		if a.opts.approve == "" {
			// The person at the terminal answers asks; before the --load
			// files, so that a script's on("approve", fn) replaces it.
			a.sh.Executor().SetApprover(pa)
		}
		s.askBudget(pa) // an exhausted budget asks whether to extend it
		fmt.Fprintf(a.io.out, "agentsh — %s. :help for help, Ctrl-D to exit.\n", langTitle(s.lang))
	} else {
		s.lines = &plainReader{r: bufio.NewReader(a.io.in)}
	}
	defer s.lines.close()
	if err := a.loadPolicies(context.Background()); err != nil && !s.exits(err) {
		a.report(err, nil)
	}
	s.replaceTools()
	code := s.loop()
	// The conversation ends here, not when the process closes, so that a
	// session_end hook's error is shown and counts.
	if a.sh != nil {
		for _, err := range agentsh.EndErrors(a.endSession(context.Background())) {
			a.report(err, nil)
			if code == exitOK {
				code = exitError
			}
		}
	}
	return code
}

// replaceTools lets what is typed redefine tools, with a note: trying a
// tool out means defining it again and again.
func (s *replSession) replaceTools() {
	s.a.sh.Host().SetReplaceTools(true, func(name string) {
		fmt.Fprintf(s.a.io.err, "replaced tool %s\n", name)
	})
}

func (s *replSession) loop() int {
	for {
		if stop := s.stopped(); stop != nil {
			return stop.exitCode()
		}
		if s.exited != nil {
			return s.exited.Code
		}
		// Commands start with ':' and take the whole line.
		line, err := s.read(s.prompt())
		switch {
		case err == io.EOF:
			return 0
		case errors.Is(err, errAborted):
			continue
		case err != nil:
			fmt.Fprintf(s.a.io.err, "agentsh: %v\n", err)
			return 1
		}
		if strings.HasPrefix(strings.TrimSpace(line), ":") {
			if quit := s.command(strings.TrimSpace(line)); quit {
				return 0
			}
			continue
		}
		pending := []byte(line + "\n")
		chunk, err := s.a.sh.Interp(s.lang).ReadChunk(func() ([]byte, error) {
			if pending != nil {
				b := pending
				pending = nil
				return b, nil
			}
			more, err := s.read(contPrompt)
			if err != nil {
				return nil, err
			}
			return []byte(more + "\n"), nil
		})
		switch {
		case errors.Is(err, errAborted):
			continue
		case errors.Is(err, io.EOF):
			return 0 // input ended inside an open block
		case err != nil:
			fmt.Fprintln(s.a.io.err, detail(err))
			continue
		}
		switch strings.TrimSpace(string(chunk)) {
		case "":
			continue
		case "quit()":
			return 0
		}
		s.eval(chunk)
	}
}

// read shows the prompt p and reads a line, after what was printed so
// far has reached the terminal whole.
func (s *replSession) read(p string) (string, error) {
	flushTerminal(s.a.io.out, s.a.io.err)
	return s.lines.prompt(p)
}

// eval runs one chunk; an interrupt cancels it (and its tool calls), not
// the session.
func (s *replSession) eval(chunk []byte) {
	s.interruptible(func(ctx context.Context) (string, error) { return s.a.sh.Interp(s.lang).Eval(ctx, "<stdin>", chunk) })
}

// interruptible runs fn under a context that an interrupt cancels (and
// --timeout bounds), then prints its value or error.
func (s *replSession) interruptible(fn func(ctx context.Context) (string, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	if s.a.opts.timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), s.a.opts.timeout)
	}
	defer cancel()
	for len(s.signals) > 0 { // interrupts typed before this chunk ran
		<-s.signals
	}
	s.mu.Lock()
	if s.ending != nil {
		s.mu.Unlock()
		return
	}
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	done, watching := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case <-s.signals:
			cancel()
		case <-done:
		}
	}()
	v, err := fn(ctx)
	close(done)
	<-watching // so this watcher cannot take the next chunk's interrupt
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		// Also when the chunk ended without noticing, say after a
		// cancelled tool call: the user asked it to stop.
		fmt.Fprintln(s.a.io.err, "interrupted")
	case err != nil:
		s.report(err)
	default:
		s.a.printValue(v)
	}
}

// report prints err, unless it is a script's exit(code), which ends the
// session with code instead.
func (s *replSession) report(err error) {
	if !s.exits(err) {
		fmt.Fprintln(s.a.io.err, detail(err))
	}
}

// exits reports whether err is a script's exit(code), and if so ends the
// session with code once the running input is done.
func (s *replSession) exits(err error) bool {
	var ex *script.Exit
	if errors.As(err, &ex) {
		s.exited = ex
		return true
	}
	return false
}

// stopped returns the signal that ends the session, or nil.
func (s *replSession) stopped() *stopped {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ending
}

// end stops the session for a signal (see stopper): it cancels the
// running evaluation, after which loop returns the signal's exit code, or,
// at the prompt, closes the line reader (saving history and restoring the
// terminal) and exits.
func (s *replSession) end(cause error) {
	s.mu.Lock()
	s.ending, _ = cause.(*stopped)
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		return
	}
	s.lines.close()
	s.exit(s.ending.exitCode())
}

//go:embed replhelp.txt
var replHelp string

// command runs a ':' command and reports whether to quit.
func (s *replSession) command(line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":quit", ":q", ":exit":
		return true
	case ":help", ":h":
		if arg == "" {
			io.WriteString(s.a.io.out, replHelp)
			return false
		}
		text, err := s.a.sh.Host().Help(arg)
		if err != nil {
			fmt.Fprintln(s.a.io.err, err)
			return false
		}
		fmt.Fprintln(s.a.io.out, text)
	case ":tools":
		s.a.tools()
	case ":load":
		if arg == "" {
			fmt.Fprintln(s.a.io.err, ":load needs a file: :load policies/deny.star")
			return false
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := s.a.sh.Load(ctx, arg); err != nil {
			s.report(err)
		}
	case ":ask":
		if arg == "" {
			fmt.Fprintln(s.a.io.err, ":ask needs a prompt, such as :ask which files mention the config?")
			return false
		}
		s.interruptible(func(ctx context.Context) (string, error) {
			_, err := s.a.sh.Agent().Ask(ctx, arg, 0)
			return "", err
		})
	case ":model":
		sess := s.a.sh.Agent()
		if arg != "" {
			if err := sess.SetProvider(arg); err != nil {
				fmt.Fprintln(s.a.io.err, detail(err))
				return false
			}
		}
		if name := sess.ProviderName(); name != "" {
			fmt.Fprintln(s.a.io.out, name)
		} else {
			fmt.Fprintln(s.a.io.err, "no model yet: :model PROVIDER:MODEL, --model, or model(fn) in a script")
		}
	case ":new":
		if err := s.a.sh.Agent().NewConversation(context.Background()); err != nil {
			fmt.Fprintln(s.a.io.err, detail(err))
		}
		fmt.Fprintln(s.a.io.err, s.newConversationNotice())
	case ":sessions":
		s.cmdSessions(arg)
	case ":resume":
		s.cmdResume(arg)
	case ":compact":
		s.cmdCompact(arg)
	case ":star", ":starlark", ":lua":
		s.lang = "starlark"
		if name == ":lua" {
			s.lang = "lua"
		}
		fmt.Fprintf(s.a.io.err, "now %s\n", langTitle(s.lang))
	default:
		fmt.Fprintf(s.a.io.err, "unknown command %s; :help lists the commands\n", name)
	}
	return false
}

// plainReader reads lines without editing or prompts (stdin is not a
// terminal).
type plainReader struct{ r *bufio.Reader }

func (p *plainReader) prompt(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err == io.EOF && line != "" {
		return line, nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}

func (p *plainReader) close() {}

// linerReader edits lines on a terminal, with history and completion.
type linerReader struct {
	st      *liner.State
	history string
	cont    bool      // the prompt is a continuation ("... ")
	closed  sync.Once // a signal may close it while the loop does too
}

// completer is what Tab does: the text before and after the cursor, with
// the completions of the word between (see liner.WordCompleter). cont
// tells that the line continues a block.
type completer func(line string, pos int, cont bool) (head string, completions []string, tail string)

func newLinerReader(complete completer) *linerReader {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	r := &linerReader{st: st, history: historyPath()}
	st.SetWordCompleter(func(line string, pos int) (string, []string, string) { return complete(line, pos, r.cont) })
	if r.history != "" {
		if f, err := os.Open(r.history); err == nil {
			st.ReadHistory(f)
			f.Close()
		}
	}
	return r
}

func (r *linerReader) prompt(p string) (string, error) {
	r.cont = p == contPrompt
	line, err := r.st.Prompt(p)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errAborted
	}
	if err == nil && strings.TrimSpace(line) != "" {
		r.st.AppendHistory(line)
	}
	return line, err
}

// ask reads an answer at the approval prompt, kept out of the history.
func (r *linerReader) ask(p string) (string, error) {
	r.cont = false
	line, err := r.st.Prompt(p)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errAborted
	}
	return line, err
}

func (r *linerReader) close() {
	r.closed.Do(func() {
		if r.history != "" {
			if err := saveHistory(r.history, r.st.WriteHistory); err != nil {
				fmt.Fprintf(os.Stderr, "agentsh: %v\n", err)
			}
		}
		r.st.Close()
	})
}

// saveHistory writes the history file with mode 0600 (it may hold secrets
// typed at the prompt), creating its directory with mode 0700.
func saveHistory(path string, write func(io.Writer) (int, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	if err := f.Chmod(0o600); err != nil { // an older file may have other bits
		f.Close()
		return fmt.Errorf("save history: %w", err)
	}
	if _, err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("save history: %w", err)
	}
	return f.Close()
}

// historyPath is $XDG_STATE_HOME/agentsh/history, defaulting to
// ~/.local/state/agentsh/history; "" when there is no home.
func historyPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "agentsh", "history")
}

// indent is what Tab inserts at the start of a continuation line.
const indent = "    "

// complete is the REPL's Tab: at the start of a "... " line an indent;
// inside a string the tool names; otherwise what the language's
// interpreter completes (names, and members after a dot).
func (s *replSession) complete(line string, pos int, cont bool) (string, []string, string) {
	if pos < 0 || pos > len(line) {
		pos = len(line)
	}
	before, after := line[:pos], line[pos:]
	if cont && strings.TrimSpace(before) == "" {
		return before, []string{indent}, after
	}
	if inString(before) {
		i := len(before)
		for i > 0 && (isIdentByte(before[i-1]) || before[i-1] == '-') {
			i--
		}
		word := before[i:]
		var out []string
		for _, t := range s.a.sh.Host().ToolNames() {
			if strings.HasPrefix(t, word) {
				out = append(out, t)
			}
		}
		sort.Strings(out)
		return before[:i], out, after
	}
	start, words := s.a.sh.Interp(s.lang).Complete(line, pos)
	return line[:start], words, after
}

// inString reports whether text ends inside a string literal.
func inString(text string) bool {
	return strings.Count(text, `"`)%2 == 1 || strings.Count(text, `'`)%2 == 1
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
