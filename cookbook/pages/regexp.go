package pages

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// ErrBacktracking: page code has a regular expression that only a
// backtracking matcher can run. goja runs a pattern on Go's regexp
// (linear in the input, whatever the pattern: a property of the RE2
// design, https://github.com/google/re2/wiki/WhyRE2) when its
// parser.TransformRegExp accepts it, and otherwise on
// github.com/dlclark/regexp2, which backtracks (exponential time on
// /^(a|a)*\1$/), has only a global wall-clock timeout and cannot be
// interrupted mid-match (goja builtin_regexp.go compileRegexp). Such a
// pattern is refused before it can run: its literal before any of the file
// runs, a pattern built at run time (RegExp(str), new RegExp(str),
// String.prototype.match/matchAll/search with a string) when it is built.
// The real pages need none (their patterns are character classes,
// anchors, groups and simple quantifiers).
var ErrBacktracking = errors.New("a regular expression that needs a backtracking matcher is not run")

// backtracking says why goja would run pattern with flags on its
// backtracking matcher ("a backreference", "a lookahead", …), "" when it
// runs on Go's regexp (or is invalid, which goja reports itself). It makes
// goja's own decision (compileRegexp: parser.TransformRegExp, then
// regexp.Compile, regexp2 on RegexpErrorIncompatible or
// syntax.ErrInvalidRepeatSize). goja first rewrites characters outside the
// BMP as \u escapes, which changes neither decision.
func backtracking(pattern, flags string) string {
	dotAll, unicode, ignoreCase, multiline := false, false, false, false
	for _, c := range flags {
		switch c {
		case 's':
			dotAll = true
		case 'u':
			unicode = true
		case 'i':
			ignoreCase = true
		case 'm':
			multiline = true
		case 'g', 'y':
		default:
			return "" // invalid flags: goja throws a SyntaxError
		}
	}
	re2, err := parser.TransformRegExp(pattern, dotAll, unicode)
	if err != nil {
		var inc parser.RegexpErrorIncompatible
		if !errors.As(err, &inc) {
			return ""
		}
		msg := inc.Error()
		switch {
		case strings.Contains(msg, "lookahead"):
			return "a lookahead"
		case strings.Contains(msg, "lookbehind"):
			return "a lookbehind"
		case strings.Contains(msg, "back-reference"), strings.Contains(msg, "backreference"):
			return "a backreference"
		}
		return "a construct Go's regexp lacks (" + msg + ")"
	}
	re2flags := ""
	if multiline {
		re2flags += "m"
	}
	if dotAll {
		re2flags += "s"
	}
	if ignoreCase {
		re2flags += "i"
	}
	if re2flags != "" {
		re2 = "(?" + re2flags + ":" + re2 + ")"
	}
	if _, err := regexp.Compile(re2); err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && se.Code == syntax.ErrInvalidRepeatSize {
			return "a repeat count over 1000"
		}
	}
	return ""
}

// regexpError is the ErrBacktracking error of /pattern/flags.
func regexpError(pattern, flags, why string) error {
	p := pattern
	if len(p) > 80 {
		p = p[:80] + "…"
	}
	return fmt.Errorf("%w: /%s/%s has %s", ErrBacktracking, p, flags, why)
}

// checkRegexpLiterals refuses the first regular expression literal of prg
// that needs a backtracking matcher (a *FileError at its position), before
// any code runs.
func checkRegexpLiterals(name string, prg *ast.Program) error {
	var bad *ast.RegExpLiteral
	var why string
	walkAST(prg, func(n any) {
		if r, ok := n.(*ast.RegExpLiteral); ok && bad == nil {
			if w := backtracking(r.Pattern, r.Flags); w != "" {
				bad, why = r, w
			}
		}
	})
	if bad == nil {
		return nil
	}
	fe := &FileError{File: name, Err: regexpError(bad.Pattern, bad.Flags, why)}
	if prg.File != nil {
		p := prg.File.Position(int(bad.Idx) - prg.File.Base())
		fe.Line, fe.Column = p.Line, p.Column
	}
	return fe
}
