package sandbox

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// This file keeps names that are empty only at run time away from the
// interpreter: mvdan.cc/sh/v3 v3.14.1 panics on a variable lookup of the
// empty name (interp/vars.go lookupVar: "variable name must not be
// empty"), and where it runs a statement in a goroutine of its own (a
// background statement, the left of a pipe) no recover of the sandbox's
// reaches the panic: the process would crash. The constructs that reach
// that lookup with a name computed at run time are `[[ -v WORD ]]` and
// `[[ -R WORD ]]`, the test/[ builtins' -v and -R, `unset WORD` and a name
// reference (declare/local/typeset -n, export -n in the interpreter) whose
// target is empty. Each is given bash's answer instead (GNU bash 5.2,
// checked: `[[ -v "" ]]` and `[ -v "" ]` are false, `unset ""` does
// nothing and succeeds, `declare -n R=""` declares nothing, so R reads as
// empty).

// nameCheckCmd is the command guardNames puts around a name operand; the
// call handler answers it (nameOperand).
const nameCheckCmd = "__cookbook_sync_name"

// noName is what a name operand that is empty (or no name at all) becomes:
// a non-empty string that is no variable's name, so the interpreter finds
// nothing set, as bash does for the empty name.
const noName = " "

// nameOperand is what nameCheckCmd prints for its arguments (the words of
// the operand): the operand itself, or noName when it is empty or holds a
// newline (which the command substitution would strip, and which is no
// name either).
func nameOperand(args []string) string {
	v := strings.Join(args, " ")
	if v == "" || strings.Contains(v, "\n") {
		return noName
	}
	return v
}

// nameWord is w moved into `$(nameCheckCmd "w")`: the operand is expanded
// once, by the check, which prints it back (nameOperand).
func nameWord(w *syntax.Word) *syntax.Word {
	arg := quotedCopy(w)
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, `\`) {
			arg = &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)} // a backslash means something else in quotes
			break
		}
	}
	pos := w.Pos()
	check := &syntax.CmdSubst{Left: pos, Right: pos, Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{
		{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: nameCheckCmd}}}, arg,
	}}}}}
	return &syntax.Word{Parts: []syntax.WordPart{check}}
}

// guardNames rewrites the name operands the interpreter looks up at run
// time so that an empty one never reaches it: the operand of `[[ -v … ]]`
// and `[[ -R … ]]`, and the value of every assignment of a declaration
// that makes name references (the nameref variant, or a literal flag word
// with n). It reports whether it changed anything.
func guardNames(f *syntax.File) bool {
	changed := false
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
				if w, ok := x.X.(*syntax.Word); ok && w != nil && len(w.Parts) > 0 {
					x.X = nameWord(w)
					changed = true
				}
			}
		case *syntax.DeclClause:
			if !declaresRefs(x) {
				return true
			}
			for _, as := range x.Args {
				if as.Naked || as.Array != nil || as.Append {
					continue
				}
				if as.Value == nil || len(as.Value.Parts) == 0 {
					// `declare -n R=`: a reference to no name.
					as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: as.Pos(), Right: as.Pos(), Value: noName}}}
				} else {
					as.Value = nameWord(as.Value)
				}
				changed = true
			}
		}
		return true
	})
	return changed
}

// declaresRefs reports whether a declaration makes name references: the
// nameref variant, or a literal flag word holding n (`-n`, `-gn`; the
// interpreter reads export's -n that way too).
func declaresRefs(d *syntax.DeclClause) bool {
	if d.Variant != nil && d.Variant.Value == "nameref" {
		return true
	}
	for _, as := range d.Args {
		if !as.Naked || as.Value == nil {
			continue
		}
		if l := as.Value.Lit(); strings.HasPrefix(l, "-") && strings.Contains(l, "n") {
			return true
		}
	}
	return false
}

// nameArgs gives the arguments of the builtins that look names up (unset;
// test and [ with -v or -R) bash's answer for an empty name: `unset ""`
// does nothing, `[ -v "" ]` is false (the operand becomes noName).
func nameArgs(args []string) []string {
	switch args[0] {
	case "unset":
		out := args[:1:1]
		for _, a := range args[1:] {
			if a != "" {
				out = append(out, a)
			}
		}
		return out
	case "test", "[":
		var out []string
		for i, a := range args {
			if a == "" && i > 0 && (args[i-1] == "-v" || args[i-1] == "-R") {
				a = noName
			}
			out = append(out, a)
		}
		return out
	}
	return args
}

// guardEvalText applies guardNames to eval'd text (which the interpreter
// parses itself): the text printed back when a guard was added, else
// unchanged.
func guardEvalText(text string) string {
	if !strings.Contains(text, "-v") && !strings.Contains(text, "-R") && !strings.Contains(text, "n") {
		return text
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || !guardNames(f) {
		return text
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return text
	}
	return b.String()
}

// arithNameCmd is what guardArithNames makes of an arithmetic assignment
// the interpreter cannot make; the call handler ends the run there as
// Unsupported (arithNameMsg).
const arithNameCmd = "__cookbook_sync_arith_name"

// arithNameMsg says why an arithNameCmd ends the run.
const arithNameMsg = "the shell interpreter (mvdan.cc/sh/v3) fails on this input: an arithmetic assignment or ++/-- to something other than a plain variable name (an array element, a computed name), whose lookup of the empty name it panics on"

// guardArithNames replaces every arithmetic assignment (`x=…`, `x+=…`, …)
// and increment or decrement whose operand is not a plain variable name
// (`$((a[1]=2))`, `((++(x)))`) by `$(arithNameCmd MARKER)`: the
// interpreter (mvdan.cc/sh/v3 expand/arith.go assgnArit and Inc/Dec)
// looks the empty name up and panics — in a background statement or a
// pipe, beyond any recover. bash assigns the array element; the run is
// Unsupported there instead, at the expression.
func guardArithNames(f *syntax.File, name string) {
	fail := func(at syntax.Pos) syntax.ArithmExpr {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.CmdSubst{Left: at, Right: at, Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{
			{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: at, ValueEnd: at, Value: arithNameCmd}}},
			{Parts: []syntax.WordPart{&syntax.Lit{Value: markerWord(ctxPlain, at, name)}}},
		}}}}}}}
	}
	plain := func(x syntax.ArithmExpr) bool {
		w, ok := x.(*syntax.Word)
		return ok && w.Lit() != ""
	}
	var fix func(e syntax.ArithmExpr) syntax.ArithmExpr
	fix = func(e syntax.ArithmExpr) syntax.ArithmExpr {
		switch x := e.(type) {
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				if !plain(x.X) {
					return fail(x.Pos())
				}
			}
			x.X, x.Y = fix(x.X), fix(x.Y)
		case *syntax.UnaryArithm:
			if (x.Op == syntax.Inc || x.Op == syntax.Dec) && !plain(x.X) {
				return fail(x.Pos())
			}
			x.X = fix(x.X)
		case *syntax.ParenArithm:
			x.X = fix(x.X)
		}
		return e
	}
	fixAll := func(es ...*syntax.ArithmExpr) {
		for _, e := range es {
			if *e != nil {
				*e = fix(*e)
			}
		}
	}
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ArithmExp:
			fixAll(&x.X)
		case *syntax.ArithmCmd:
			fixAll(&x.X)
		case *syntax.LetClause:
			for i := range x.Exprs {
				fixAll(&x.Exprs[i])
			}
		case *syntax.CStyleLoop:
			fixAll(&x.Init, &x.Cond, &x.Post)
		case *syntax.ParamExp:
			fixAll(&x.Index)
			if x.Slice != nil {
				fixAll(&x.Slice.Offset, &x.Slice.Length)
			}
		case *syntax.Assign:
			fixAll(&x.Index)
		case *syntax.ArrayElem:
			fixAll(&x.Index)
		}
		return true
	})
}
