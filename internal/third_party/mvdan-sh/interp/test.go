// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/syntax"
)

// non-empty string is true, empty string is false
func (r *Runner) bashTest(ctx context.Context, expr syntax.TestExpr, classic bool) string {
	switch x := expr.(type) {
	case *syntax.Word:
		if classic {
			// In the classic "test" mode, we already expanded and
			// split the list of words, so don't redo that work.
			return r.document(x)
		}
		return r.literal(x)
	case *syntax.ParenTest:
		return r.bashTest(ctx, x.X, classic)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch:
			str := r.literal(x.X.(*syntax.Word))
			r.holeIn("a test", str) // cookbook-sync patch
			yw := x.Y.(*syntax.Word)
			if classic { // test, [
				lit := r.literal(yw)
				r.holeIn("a test", lit) // cookbook-sync patch
				if (str == lit) == (x.Op != syntax.TsNoMatch) {
					return "1"
				}
			} else { // [[
				pattern := r.pattern(yw)
				if r.match(pattern, str) == (x.Op != syntax.TsNoMatch) {
					return "1"
				}
			}
			return ""
		}
		bx := r.bashTest(ctx, x.X, classic)
		switch x.Op { // cookbook-sync patch: bash does not evaluate the right
		// operand of && and || when the left decides (a hole it would look at
		// there is not looked at)
		case syntax.AndTest:
			if bx == "" {
				return ""
			}
		case syntax.OrTest:
			if bx != "" {
				return "1"
			}
		default:
			r.holeIn("a test", bx)
		}
		by := r.bashTest(ctx, x.Y, classic)
		if x.Op != syntax.AndTest && x.Op != syntax.OrTest { // cookbook-sync patch
			r.holeIn("a test", by)
		}
		if !classic {
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// cookbook-sync patch: in [[ ]], the operands of a numeric
				// comparison are arithmetic expressions, as in bash
				// (0x10, 010, 2+3, a variable's name); test and [ take
				// decimal integers (binTest)
				a, err := r.testArithm(bx)
				if err == nil {
					var b int64
					if b, err = r.testArithm(by); err == nil {
						if numTest(x.Op, a, b) {
							return "1"
						}
						return ""
					}
				}
				r.errf("%v\n", err)
				return ""
			}
		}
		if r.binTest(ctx, x.Op, bx, by) {
			return "1"
		}
		return ""
	case *syntax.UnaryTest:
		ux := r.bashTest(ctx, x.X, classic)
		switch x.Op { // cookbook-sync patch: -z, -n and ! test a string's truth
		case syntax.TsEmpStr, syntax.TsNempStr, syntax.TsNot:
		default:
			if r.holeWorlds != nil && fileTest(x.Op) {
				// the stat and access handlers get the path: with the
				// holes' worlds known, theirs to decide (HoleWorlds)
				break
			}
			r.holeIn("a test", ux)
		}
		if r.unTest(ctx, x.Op, ux) {
			return "1"
		}
		return ""
	}
	return ""
}

// fileTest reports whether a unary test only asks the stat or access
// handler about its operand, a path (cookbook-sync patch).
func fileTest(op syntax.UnTestOperator) bool {
	switch op {
	case syntax.TsExists, syntax.TsRegFile, syntax.TsDirect, syntax.TsCharSp, syntax.TsBlckSp,
		syntax.TsNmPipe, syntax.TsSocket, syntax.TsSmbLink, syntax.TsSticky, syntax.TsUIDSet,
		syntax.TsGIDSet, syntax.TsModif, syntax.TsRead, syntax.TsWrite, syntax.TsExec, syntax.TsNoEmpty:
		return true
	}
	return false
}

func (r *Runner) binTest(ctx context.Context, op syntax.BinTestOperator, x, y string) bool {
	switch op {
	case syntax.TsReMatch:
		re, err := regexp.Compile(y)
		if err != nil {
			r.exit.code = 2
			return false
		}
		m := re.FindStringSubmatch(x)
		if m == nil {
			return false
		}
		vr := expand.Variable{
			Set:  true,
			Kind: expand.Indexed,
			List: m,
		}
		r.setVar("BASH_REMATCH", vr)
		return true
	case syntax.TsNewer, syntax.TsOlder:
		info1, err1 := r.stat(ctx, x)
		info2, err2 := r.stat(ctx, y)
		// -ot is the mirror of -nt, so swap the operands and share the logic.
		if op == syntax.TsOlder {
			info1, info2, err1, err2 = info2, info1, err2, err1
		}
		// True if the first operand exists and the second does not,
		// or if both exist and the first is newer.
		if err1 != nil {
			return false
		}
		if err2 != nil {
			return true
		}
		return info1.ModTime().After(info2.ModTime())
	case syntax.TsDevIno:
		info1, err1 := r.stat(ctx, x)
		info2, err2 := r.stat(ctx, y)
		if err1 != nil || err2 != nil {
			return false
		}
		return os.SameFile(info1, info2)
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		// cookbook-sync patch: test and [ take decimal integers only
		// (bash's legal_number: blanks, a sign, digits, blanks); any other
		// operand is an error, and the test false (it read "0x10" as 0)
		a, okA := legalNumber(x)
		b, okB := legalNumber(y)
		if !okA || !okB {
			bad := x
			if okA {
				bad = y
			}
			r.errf("%s: integer expression expected\n", bad)
			return false
		}
		return numTest(op, a, b)
	case syntax.AndTest:
		return x != "" && y != ""
	case syntax.OrTest:
		return x != "" || y != ""
	case syntax.TsBefore:
		return x < y
	case syntax.TsAfter:
		return x > y
	default:
		// Should only happen if we forgot a case above.
		panic(fmt.Sprintf("unexpected binary test operator: %q", op))
	}
}

func (r *Runner) statMode(ctx context.Context, name string, mode os.FileMode) bool {
	info, err := r.stat(ctx, name)
	return err == nil && info.Mode()&mode != 0
}

func (r *Runner) unTest(ctx context.Context, op syntax.UnTestOperator, x string) bool {
	switch op {
	case syntax.TsExists:
		_, err := r.stat(ctx, x)
		return err == nil
	case syntax.TsRegFile:
		info, err := r.stat(ctx, x)
		return err == nil && info.Mode().IsRegular()
	case syntax.TsDirect:
		return r.statMode(ctx, x, os.ModeDir)
	case syntax.TsCharSp:
		return r.statMode(ctx, x, os.ModeCharDevice)
	case syntax.TsBlckSp:
		info, err := r.stat(ctx, x)
		return err == nil && info.Mode()&os.ModeDevice != 0 &&
			info.Mode()&os.ModeCharDevice == 0
	case syntax.TsNmPipe:
		return r.statMode(ctx, x, os.ModeNamedPipe)
	case syntax.TsSocket:
		return r.statMode(ctx, x, os.ModeSocket)
	case syntax.TsSmbLink:
		info, err := r.lstat(ctx, x)
		return err == nil && info.Mode()&os.ModeSymlink != 0
	case syntax.TsSticky:
		return r.statMode(ctx, x, os.ModeSticky)
	case syntax.TsUIDSet:
		return r.statMode(ctx, x, os.ModeSetuid)
	case syntax.TsGIDSet:
		return r.statMode(ctx, x, os.ModeSetgid)
	case syntax.TsModif:
		info, err := r.stat(ctx, x)
		if err != nil {
			return false
		}
		return info.ModTime().After(getAtime(info))
	case syntax.TsRead:
		return r.access(ctx, x, AccessRead) == nil
	case syntax.TsWrite:
		return r.access(ctx, x, AccessWrite) == nil
	case syntax.TsExec:
		return r.access(ctx, x, AccessExec) == nil
	case syntax.TsNoEmpty:
		info, err := r.stat(ctx, x)
		return err == nil && info.Size() > 0
	case syntax.TsFdTerm:
		fd := atoi(x)
		var f any
		switch fd {
		case 0:
			f = r.stdin
		case 1:
			f = r.stdout
		case 2:
			f = r.stderr
		}
		if f, ok := f.(interface{ Fd() uintptr }); ok {
			// Support [os.File.Fd] methods such as the one on [*os.File].
			return term.IsTerminal(int(f.Fd()))
		}
		// TODO: allow term.IsTerminal here too if running in the
		// "single process" mode.
		return false
	case syntax.TsEmpStr:
		return x == ""
	case syntax.TsNempStr:
		return x != ""
	case syntax.TsOptSet:
		if opt := r.posixOptByName(x); opt != nil {
			return *opt
		}
		return false
	case syntax.TsVarSet:
		return r.lookupVar(x).IsSet()
	case syntax.TsRefVar:
		return r.lookupVar(x).Kind == expand.NameRef
	case syntax.TsNot:
		return x == ""
	case syntax.TsUsrOwn, syntax.TsGrpOwn:
		return r.unTestOwnOrGrp(ctx, op, x)
	default:
		// Should only happen if we forgot a case above.
		panic(fmt.Sprintf("unexpected unary test op: %v", op))
	}
}

// testArithm (cookbook-sync patch) is the value of s as an arithmetic
// expression, as [[ a -eq b ]] reads its operands; an empty string is 0.
func (r *Runner) testArithm(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	if n, ok := plainDecimal(s); ok {
		// what the parser and expand.Arithm make of a decimal literal,
		// without a parser (the operands of [[ $CONC -ge 16 ]])
		return n, nil
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(s))
	if err != nil {
		return 0, err
	}
	n, err := expand.Arithm(r.ecfg, expr)
	return int64(n), err
}

// plainDecimal (cookbook-sync patch) is s as a decimal number when s is
// "0" or a digit 1-9 followed by at most 17 digits (no sign, blank, base
// prefix or octal leading zero: its value fits an int64 as written).
func plainDecimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// numTest (cookbook-sync patch) compares a and b by a numeric test
// operator.
func numTest(op syntax.BinTestOperator, a, b int64) bool {
	switch op {
	case syntax.TsEql:
		return a == b
	case syntax.TsNeq:
		return a != b
	case syntax.TsLeq:
		return a <= b
	case syntax.TsGeq:
		return a >= b
	case syntax.TsLss:
		return a < b
	}
	return a > b
}

// legalNumber (cookbook-sync patch) is s read as bash's test reads an
// integer (general.c legal_number): optional blanks, an optional sign,
// decimal digits, optional blanks; ok false for anything else.
func legalNumber(s string) (int64, bool) {
	t := strings.Trim(s, " \t\n")
	u := strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+")
	if len(t)-len(u) > 1 || u == "" || strings.Trim(u, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, false // out of range: bash's legal_number refuses it too
	}
	return n, true
}
