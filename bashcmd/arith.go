package bashcmd

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Arithmetic. Bash evaluates the text of every operand: a number is a
// number, a name is replaced by its value, evaluated in turn, and a
// subscript is expanded, so a[$(cmd)] runs cmd wherever it comes from. An
// operand passes when it is a number, a name (noted, to be judged once
// every value of the command line is known), an expansion of a number
// ($((...)), ${#x}, $?, $n of a number), or quoted text that passes as an
// expression itself. Command substitutions and other expansions are
// refused: their output is evaluated.

// arithExpr checks an arithmetic expression bash evaluates.
func (s *scope) arithExpr(e syntax.ArithmExpr) error {
	switch e := e.(type) {
	case *syntax.BinaryArithm:
		if err := s.arithExpr(e.X); err != nil {
			return err
		}
		return s.arithExpr(e.Y)
	case *syntax.UnaryArithm:
		return s.arithExpr(e.X)
	case *syntax.ParenArithm:
		return s.arithExpr(e.X)
	case *syntax.Word:
		return s.arithWord(e)
	}
	return s.unknown("cannot check an arithmetic expression of type %T", e)
}

// arithWord checks an operand of an arithmetic expression.
func (s *scope) arithWord(w *syntax.Word) error {
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if numericText(p.Value) {
				return nil
			}
			if validName(p.Value) {
				s.vars.evaluated(p.Value, w)
				return nil
			}
		case *syntax.ArithmExp:
			return nil // checked as a node of its own
		case *syntax.ParamExp:
			deps, ok := numericParam(p)
			if !ok {
				return s.unknown("cannot check %s in an arithmetic expression: bash evaluates the text it expands to, which may be any text (a[$(cmd)] runs cmd); use a variable that holds a number", shorten(printWord(w)))
			}
			for _, d := range deps {
				s.vars.evaluated(d, w)
			}
			return nil
		case *syntax.DblQuoted:
			if !p.Dollar && len(p.Parts) == 1 {
				return s.arithWord(&syntax.Word{Parts: p.Parts})
			}
		}
	}
	if text, ok := unquoted(w); ok {
		return s.arithText(text, func() string { return shorten(printWord(w)) + " in an arithmetic expression" })
	}
	return s.unknown("cannot check %s in an arithmetic expression: bash evaluates what it expands to, which may be any text (a[$(cmd)] runs cmd)", shorten(printWord(w)))
}

// arithText checks text that bash evaluates as an arithmetic expression: a
// quoted operand, a [[ -eq ]] operand, a subscript given as text. where
// says where it is, for messages.
func (s *scope) arithText(text string, where func() string) error {
	if s.arith >= MaxNesting {
		return s.unknown("cannot check %s: arithmetic nested more than %d levels deep", where(), MaxNesting)
	}
	f, err := parseBash("((" + text + "))")
	if le, ok := isLimit(err); ok {
		return s.unknown("%s", cannotRead(where(), le))
	}
	var cmd *syntax.ArithmCmd
	if err == nil && len(f.Stmts) == 1 && len(f.Last) == 0 {
		st := f.Stmts[0]
		if c, ok := st.Cmd.(*syntax.ArithmCmd); ok && !st.Negated && !st.Background && !st.Coprocess && len(st.Redirs) == 0 && len(st.Comments) == 0 {
			cmd = c
		}
	}
	if cmd == nil {
		return s.unknown("cannot check %s: bash evaluates %q as an arithmetic expression, and it does not parse as one", where(), shorten(text))
	}
	if len(s.hops) >= MaxDepth {
		return s.tooDeep()
	}
	mark, src := len(s.hops), s.src
	s.push(frame{kind: Arithmetic, fn: where})
	s.arith++
	s.src = "((" + text + "))"
	s.walk(cmd)
	s.src = src
	s.arith--
	s.hops = s.hops[:mark]
	return nil
}

// arithOperand checks an operand of [[ -eq ]] and the other arithmetic
// comparisons, which bash expands and then evaluates.
func (s *scope) arithOperand(w *syntax.Word, op string) error {
	if text, ok := unquoted(w); ok {
		return s.arithText(text, func() string { return fmt.Sprintf("the operand %s of %s in [[ ]]", shorten(printWord(w)), op) })
	}
	return s.arithWord(w)
}

// condTest checks the arithmetic comparisons of [[ ]].
func (s *scope) condTest(n *syntax.BinaryTest) error {
	switch n.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		for _, x := range []syntax.TestExpr{n.X, n.Y} {
			if w, ok := x.(*syntax.Word); ok {
				if err := s.arithOperand(w, n.Op.String()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// condVar checks [[ -v NAME ]] and [[ -R NAME ]], which evaluate the
// subscript of the name.
func (s *scope) condVar(n *syntax.UnaryTest) error {
	if n.Op != syntax.TsVarSet && n.Op != syntax.TsRefVar {
		return nil
	}
	w, ok := n.X.(*syntax.Word)
	if !ok {
		return nil
	}
	what := "the name given to " + n.Op.String() + " in [[ ]]"
	text, lit := unquoted(w)
	_, err := s.varText(arg{val: text, lit: lit, word: w}, what)
	return err
}

// paramExp checks the parts of ${...} that bash evaluates.
func (s *scope) paramExp(p *syntax.ParamExp) error {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if p.Index != nil && !allIndex(p.Index) {
		if err := s.arithExpr(p.Index); err != nil {
			return err
		}
	}
	if p.Slice != nil {
		for _, e := range []syntax.ArithmExpr{p.Slice.Offset, p.Slice.Length} {
			if e != nil {
				if err := s.arithExpr(e); err != nil {
					return err
				}
			}
		}
	}
	if p.Excl && p.Names == 0 && (p.Index == nil || !allIndex(p.Index)) {
		// ${!x}: the value of x is a name, and its subscript is evaluated.
		if !validName(name) {
			return s.unknown("cannot check ${!%s}: bash uses the value of %s as a variable name, with its subscript", name, name)
		}
		s.vars.evaluated(name, nil)
	}
	if p.Exp == nil {
		return nil
	}
	switch p.Exp.Op {
	case syntax.OtherParamOps:
		if op, ok := unquoted(p.Exp.Word); !ok || strings.Contains(op, "P") {
			return s.unknown("cannot check ${%s@%s}: prompt expansion runs the $(...) and `...` in the value", name, shorten(printWord(p.Exp.Word)))
		}
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if validName(name) {
			return s.write(name, wordValue(p.Exp.Word))
		}
	}
	return nil
}
