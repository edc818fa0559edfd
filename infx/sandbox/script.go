package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
	"mvdan.cc/sh/v3/syntax"
)

// sizeCheckCmd is the command guardAssignments puts in front of every
// assignment value; the call handler answers it (see sandbox.call).
const sizeCheckCmd = "__cookbook_sync_size_check"

// guardAssignments makes every assignment in the script check the size of
// the variables first: `x=VALUE` becomes `x=$(sizeCheckCmd MARKER)VALUE`
// (`x=~/y` becomes `x=~/y$(sizeCheckCmd MARKER)`, the tilde first)
// (the marker makes the assignment, in its own file, the position last
// reached). The
// command substitution prints nothing, and put first it leaves the status
// of the assignment (that of its last command substitution) as it was.
// Sourced files are not rewritten; the per-command argument bound still
// applies to them.
func guardAssignments(f *syntax.File, name string) {
	guard := func(as []*syntax.Assign) {
		for _, a := range as {
			if a.Value == nil {
				continue
			}
			check := &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{
				Args: []*syntax.Word{
					{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: a.Pos(), ValueEnd: a.Pos(), Value: sizeCheckCmd}}},
					{Parts: []syntax.WordPart{&syntax.Lit{Value: markerWord(ctxPlain, a.Pos(), name)}}},
				},
			}}}}
			if lit, ok := a.Value.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
				// a value starting with a tilde keeps it first, where it
				// expands (x=~/y; the check in front made it ~/y): the
				// check comes after that literal, still before any
				// command substitution of the value
				a.Value.Parts = append([]syntax.WordPart{lit, check}, a.Value.Parts[1:]...)
				continue
			}
			a.Value.Parts = append([]syntax.WordPart{check}, a.Value.Parts...)
		}
	}
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			guard(n.Assigns)
		case *syntax.DeclClause:
			guard(n.Args)
		}
		return true
	})
}

// stepCmd is the command countIterations puts in every loop; the call
// handler counts it against the step bound (sandbox.iters).
const stepCmd = "__cookbook_sync_step"

// countIterations makes every loop count its iterations: `while`/`until`
// run stepCmd first in their condition (whose status is its last
// command's), `for` and `select` first in their body. A loop whose body
// has no simple command (`while [[ 1 ]]; do ((x++)); done`) then ends at
// the step bound, not at the wall-time bound.
func countIterations(f *syntax.File, name string) {
	step := func(at syntax.Pos) *syntax.Stmt {
		w := func(v string) *syntax.Word { return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}} }
		return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{w(stepCmd), w(markerWord(ctxPlain, at, name))}}}
	}
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WhileClause:
			x.Cond = append([]*syntax.Stmt{step(x.Pos())}, x.Cond...)
		case *syntax.ForClause:
			x.Do = append([]*syntax.Stmt{step(x.Pos())}, x.Do...)
		}
		return true
	})
}

// markerWord is the marker of a position (marker.cmd's format).
func markerWord(ctx byte, at syntax.Pos, name string) string {
	return fmt.Sprintf("%s%c:%d:%d:%s", markerPrefix, ctx, at.Line(), at.Col(), markerName(name))
}

// markerName is name as a marker word carries it: a byte the shell would
// act on in an unquoted word — a blank, a quote, a backslash, $, a glob,
// a brace, … — and % itself are %XX (parseMarker decodes them), so that
// the word is one literal word in the tree and in the text printed from it
// (a sourced file's marked text is printed and parsed again: a name with
// a quote or a blank made it fail to parse, and its source failed).
func markerName(name string) string {
	safe := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./,:@+=-", c) >= 0
	}
	i := 0
	for i < len(name) && safe(name[i]) {
		i++
	}
	if i == len(name) {
		return name
	}
	var b strings.Builder
	b.WriteString(name[:i])
	for ; i < len(name); i++ {
		if c := name[i]; safe(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// posCmd is the command markTests puts in a file test's operand; the call
// handler records its position (the command last reached), so that a test
// the sandbox cannot answer is reported where it is written.
const posCmd = "__cookbook_sync_pos"

// posSubst is `$(posCmd MARKER)`, the guard that makes at (in file name)
// the position last reached and prints nothing.
func posSubst(at syntax.Pos, name string) *syntax.CmdSubst {
	return &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{
		{Parts: []syntax.WordPart{&syntax.Lit{Value: posCmd}}},
		{Parts: []syntax.WordPart{&syntax.Lit{Value: markerWord(ctxPlain, at, name)}}},
	}}}}}
}

// insertGuards puts, in front of every word part that match accepts (a
// part of a word or of double quotes), the part guard makes of it, as a
// part of its own: the word's value and fields are unchanged when the
// guard prints nothing. The parts are guarded innermost first, so that a
// guard made of a part's operands sees the guards of the parts nested in
// them; each list of parts is made anew (never shifted in place).
func insertGuards(f *syntax.File, match func(syntax.WordPart) bool, guard func(syntax.WordPart) syntax.WordPart) {
	type site struct {
		parts *[]syntax.WordPart
		part  syntax.WordPart
	}
	var sites []site
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		var parts *[]syntax.WordPart
		switch x := n.(type) {
		case *syntax.Word:
			parts = &x.Parts
		case *syntax.DblQuoted:
			parts = &x.Parts
		default:
			return true
		}
		for _, p := range *parts {
			if match(p) {
				sites = append(sites, site{parts, p})
			}
		}
		return true
	})
	for i := len(sites) - 1; i >= 0; i-- {
		s := sites[i]
		j := slices.Index(*s.parts, s.part)
		if j < 0 {
			continue
		}
		np := make([]syntax.WordPart, 0, len(*s.parts)+1)
		np = append(np, (*s.parts)[:j]...)
		np = append(np, guard(s.part))
		np = append(np, (*s.parts)[j:]...)
		*s.parts = np
	}
}

// markTests puts `$(posCmd MARKER)` (which prints nothing) in front of the
// operand of every file test of a [[ … ]] clause (-e FILE, A -nt B, …)
// and of a command's input redirections (`< FILE`: a read, so that one
// the sandbox cannot know is reported where it is written).
func markTests(f *syntax.File, name string) {
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		var w *syntax.Word
		switch x := n.(type) {
		case *syntax.Stmt:
			// `$(< FILE)` (a statement of one input redirection and no
			// command) is left alone: the interpreter expands its word
			// into the buffer of the substitution itself, so a guard
			// there would reach the value. It is reported at the
			// command last reached (the assignment's guard).
			if x.Cmd == nil {
				return true
			}
			for _, r := range x.Redirs {
				if r.Op == syntax.RdrIn && r.Word != nil && len(r.Word.Parts) > 0 {
					r.Word.Parts = append([]syntax.WordPart{posSubst(r.Word.Pos(), name)}, r.Word.Parts...)
				}
			}
		case *syntax.UnaryTest:
			if x.Op >= syntax.TsExists && x.Op <= syntax.TsSocket || x.Op == syntax.TsSmbLink || x.Op == syntax.TsSticky ||
				x.Op == syntax.TsGIDSet || x.Op == syntax.TsUIDSet || x.Op == syntax.TsGrpOwn || x.Op == syntax.TsUsrOwn ||
				x.Op == syntax.TsModif || x.Op == syntax.TsRead || x.Op == syntax.TsWrite || x.Op == syntax.TsExec || x.Op == syntax.TsNoEmpty {
				w, _ = x.X.(*syntax.Word)
			}
		case *syntax.BinaryTest:
			if x.Op == syntax.TsNewer || x.Op == syntax.TsOlder || x.Op == syntax.TsDevIno {
				w, _ = x.X.(*syntax.Word)
			}
		}
		if w != nil {
			w.Parts = append([]syntax.WordPart{posSubst(w.Pos(), name)}, w.Parts...)
		}
		return true
	})
}

// markFileSubsts puts `$(posCmd MARKER)` (which prints nothing) in front of
// every `$(< FILE)` of a word, so that a read of it the sandbox cannot know
// is reported where it is written rather than at the command last reached
// (markTests leaves the substitution's own word alone: the interpreter
// expands it into the substitution's buffer). The guard is a part of its
// own, before the substitution in the same word (or the same double
// quotes): the word's value and fields are the same.
func markFileSubsts(f *syntax.File, name string) {
	// the `<` of a substitution of one input redirection, as `$(cat
	// FILE)` is reported at cat (zero: not one)
	lt := func(p syntax.WordPart) syntax.Pos {
		cs, ok := p.(*syntax.CmdSubst)
		if !ok || len(cs.Stmts) != 1 || cs.Stmts[0].Cmd != nil {
			return syntax.Pos{}
		}
		for _, r := range cs.Stmts[0].Redirs {
			if r.Op == syntax.RdrIn {
				return r.OpPos
			}
		}
		return syntax.Pos{}
	}
	insertGuards(f, func(p syntax.WordPart) bool { return lt(p).IsValid() },
		func(p syntax.WordPart) syntax.WordPart { return posSubst(lt(p), name) })
}

// namelessCmd is what guardNamelessAssigns makes of a command with an
// assignment to an empty name; the call handler ends the run there as
// Unsupported.
const namelessCmd = "__cookbook_sync_nameless_assign"

// namelessMsg says why a namelessCmd ends the run.
const namelessMsg = "the shell interpreter (mvdan.cc/sh/v3) fails on this input: an assignment to an empty variable name (bash runs the word as a command)"

// guardNamelessAssigns replaces every simple command holding an assignment
// to an empty name (`+=0[`, which bash runs as a command word) by
// namelessCmd at the assignment: the interpreter panics on such an
// assignment (interp lookupVar: "variable name must not be empty"), and in
// a background statement or the left of a pipe, which it runs in a
// goroutine of its own, no recover of the sandbox's can reach the panic.
func guardNamelessAssigns(f *syntax.File) {
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		for _, as := range x.Assigns {
			if as.Name == nil || as.Name.Value == "" {
				x.Assigns, x.Args = nil, litCall(as.Pos(), namelessCmd).Args
				return false
			}
		}
		return true
	})
}

// declOptionCmd is what guardDeclOptions makes of a declaration with an
// option the interpreter does not have; the call handler ends the run
// there as Unsupported (declOptionMsg).
const declOptionCmd = "__cookbook_sync_decl_option"

// declOptionMsg says why a declOptionCmd ends the run.
const declOptionMsg = "the shell interpreter (mvdan.cc/sh/v3) has no such option (bash's integer, case-converting or trace attributes; export's -f and -n; read's -n, -N, -t, -u, -e, -i; mapfile's -n, -O, -s, -u, -C): it skips the command, so what it would set is not known"

// guardDeclOptions replaces every declaration (declare, typeset, local,
// export, readonly), and every read, mapfile or readarray
// (readOptionUnknown), whose literal option word holds a letter the
// interpreter does not take by declOptionCmd: the interpreter prints
// "invalid option" and skips the whole command (`declare -i n=5` left n
// unset), and export's -n and -f mean something else to it (a name
// reference, a printed function). Its letters: x r a A n g f p for
// declare, typeset and local; a and A for readonly (it adds r); p for
// export (it adds x).
func guardDeclOptions(f *syntax.File) {
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 && (ce.Args[0].Lit() == "read" || ce.Args[0].Lit() == "mapfile" || ce.Args[0].Lit() == "readarray") {
			if opt := readOptionUnknown(ce.Args[0].Lit(), ce.Args[1:]); opt != "" {
				st.Cmd = litCall(ce.Pos(), declOptionCmd, ce.Args[0].Lit(), opt)
			}
			return true
		}
		d, ok := st.Cmd.(*syntax.DeclClause)
		if !ok || d.Variant == nil {
			return true
		}
		allowed := "xranAgfp"
		switch d.Variant.Value {
		case "export":
			allowed = "p"
		case "readonly":
			allowed = "aA"
		}
		for _, a := range d.Args {
			if !a.Naked || a.Name != nil && a.Name.Value != "" || a.Value == nil {
				continue
			}
			opt := a.Value.Lit()
			if len(opt) < 2 || opt[0] != '-' && opt[0] != '+' || strings.Trim(opt[1:], allowed) == "" {
				continue
			}
			st.Cmd = litCall(d.Pos(), declOptionCmd, d.Variant.Value, opt)
			return false
		}
		return true
	})
}

// litCall is the simple command of literal words args, every word at
// pos (a guard command the sandbox puts in a script).
func litCall(pos syntax.Pos, args ...string) *syntax.CallExpr {
	ce := &syntax.CallExpr{}
	for _, a := range args {
		ce.Args = append(ce.Args, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: a}}})
	}
	return ce
}

// readOptionUnknown is the first literal option word of the arguments of
// a read, mapfile or readarray (name) holding a letter the interpreter
// does not take (read: -r, -s, -a, -p PROMPT and, patched, -d DELIM;
// mapfile: -t and -d DELIM), "" when none: the options end at the first
// operand, at "--", or at a word that is not literal (what it holds is
// known only when it runs).
func readOptionUnknown(name string, args []*syntax.Word) string {
	flags := "sra"
	if name != "read" {
		flags = "t"
	}
	for i := 0; i < len(args); i++ {
		w := args[i].Lit()
		if w == "--" || len(w) < 2 || w[0] != '-' {
			return ""
		}
		for j := 1; j < len(w); j++ {
			switch c := w[j]; {
			case c == 'd' || c == 'p' && name == "read":
				if j == len(w)-1 {
					i++ // the value is the next word
				}
				j = len(w)
			case strings.IndexByte(flags, c) < 0:
				return w
			}
		}
	}
	return ""
}

// replCheckCmd is the command guardReplacements puts in front of every
// pattern replacement; the call handler answers it (replCheck).
const replCheckCmd = "__cookbook_sync_repl_check"

// guardReplacements makes every pattern replacement `${x//pat/repl}` check
// the size of its result before the interpreter computes it: in front of
// it goes `$(replCheckCmd all|one "pat" "${x}" -- "repl")`, which prints
// nothing and stops the run (replCheck) when the result could exceed
// MaxBytes. Nested replacements are guarded first, so a guard's own
// operands are guarded too.
func guardReplacements(f *syntax.File) {
	insertGuards(f, func(p syntax.WordPart) bool {
		pe, ok := p.(*syntax.ParamExp)
		return ok && pe.Repl != nil && pe.Repl.With != nil && pe.Param != nil && pe.Names == 0
	}, func(p syntax.WordPart) syntax.WordPart {
		pe := p.(*syntax.ParamExp)
		mode := "one"
		if pe.Repl.All {
			mode = "all"
		}
		lit := func(v string) *syntax.Word {
			return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}}
		}
		operand := &syntax.ParamExp{Param: pe.Param, Index: pe.Index, Excl: pe.Excl}
		args := []*syntax.Word{lit(replCheckCmd), lit(mode), quotedCopy(pe.Repl.Orig),
			{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{operand}}}}, lit("--"), quotedCopy(pe.Repl.With)}
		return &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: args}}}}
	})
}

// quotedCopy is a word with w's parts, in double quotes when every part
// may stand there (one field, no globbing), else as it is.
func quotedCopy(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: ""}}}
	}
	parts := append([]syntax.WordPart(nil), w.Parts...)
	for _, p := range parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
		default:
			return &syntax.Word{Parts: parts}
		}
	}
	if len(parts) == 0 {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: ""}}}
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: parts}}}
}

// replCheck answers replCheckCmd: args are "all"|"one", the pattern, the
// operand's fields, "--" and the replacement's fields. The result of the
// replacement is at most each field's length plus, per match, the
// replacement's: a literal pattern's matches are counted, a glob's are at
// most one per byte (and one for the empty string). An error
// (a Limit) when that could exceed MaxBytes.
func replCheck(args []string) error {
	if len(args) < 3 {
		return nil
	}
	all, pat, rest := args[0] == "all", args[1], args[2:]
	sep := len(rest)
	for i, a := range rest {
		if a == "--" {
			sep = i
		}
	}
	repl := 0
	for i, a := range rest[min(sep+1, len(rest)):] {
		repl += len(a)
		if i > 0 {
			repl++
		}
	}
	literal := pat != "" && !strings.ContainsAny(pat, "*?[\\")
	total := 0
	for _, f := range rest[:sep] {
		matches := 1
		if all {
			if literal {
				matches = strings.Count(f, pat)
			} else {
				matches = len(f) + 1
			}
		}
		total += len(f) + matches*repl
		if total > MaxBytes || total < 0 {
			return limitf(LimitBytes, "a pattern replacement (${name//pattern/replacement}) could produce more than %d bytes; refused before it is expanded", MaxBytes)
		}
	}
	return nil
}

// relaxFlags drops the e, u and x letters of a `set` flag word (relaxSet);
// a strings.Replacer is safe for concurrent use and never changes.
var relaxFlags = strings.NewReplacer("e", "", "u", "", "x", "")

// relaxSet drops errexit, nounset and xtrace from a `set` call: values a
// script computes from commands the sandbox answers only in part can be
// empty, and the script should still reach its launch command; the trace
// goes to the runner's log, which no script reads (a trace captured by
// `2>&1 | grep …` would only add lines the grep drops).
func relaxSet(args []string) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "-o" || a == "+o") && i+1 < len(args) {
			if args[i+1] == "errexit" || args[i+1] == "nounset" || args[i+1] == "xtrace" {
				i++
				continue
			}
			out = append(out, a, args[i+1])
			i++
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			a = relaxFlags.Replace(a)
			if a == "-" || a == "+" {
				continue
			}
		}
		out = append(out, a)
	}
	if len(out) == 1 {
		// A bare `set` prints the variables; keep it harmless.
		return []string{"set", "+e"}
	}
	return out
}

// printfSpec is one conversion of a printf format: format[start:end] is
// the whole %… spec, flags what stands between % and the verb.
type printfSpec struct {
	start, end int
	flags      string
	verb       byte
}

// printfSpecs is the conversions of format in order ("%%" is text, a
// backslash escape is skipped); complete is false when a spec's flags
// run to the format's end without a verb (the specs before it are
// given).
func printfSpecs(format string) (specs []printfSpec, complete bool) {
	for i := 0; i < len(format); i++ {
		if format[i] == '\\' {
			i++
			continue
		}
		if format[i] != '%' || i+1 >= len(format) {
			continue
		}
		if format[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return specs, false
		}
		specs = append(specs, printfSpec{start: i, end: j + 1, flags: format[i+1 : j], verb: format[j]})
		i = j
	}
	return specs, true
}

// printfCompat rewrites `printf [-v VAR] FMT ARGS…` whose format uses what
// the interpreter's printf lacks (mvdan.cc/sh/v3 expand.Format knows only
// %s %b %c %d %i %u %o %x with flags and width: no precision, no '#', no
// %X %e %f %g, no %q) into a printf of %s conversions whose arguments are
// formatted here the way bash's printf (C printf) does: %q quotes like
// bash (backslash before shell-special characters; scripts save the server
// command with printf '%q ' "${CMD[@]}"), floats and precisions as C does.
// As in bash the format is reused while arguments remain, and missing
// arguments count as "" or 0. It returns false, leaving the call alone,
// when the format needs nothing of this or has what it does not handle
// (a '*' width, %a).
func printfCompat(args []string) ([]string, bool) {
	fi := 1
	if len(args) > 3 && args[1] == "-v" {
		fi = 3
	}
	if len(args) <= fi {
		return args, false
	}
	format := args[fi]
	specs, complete := printfSpecs(format)
	if !complete {
		return args, false
	}
	rewrite := false
	for _, sp := range specs {
		switch {
		case strings.Contains(sp.flags, "*") || sp.verb == 'a' || sp.verb == 'A':
			return args, false
		case strings.IndexByte("sbcdiuox", sp.verb) < 0 || strings.ContainsAny(sp.flags, ".#"),
			sp.verb == 'c', sp.verb == 's' && sp.flags != "",
			strings.IndexByte("uoxX", sp.verb) >= 0 && strings.ContainsAny(sp.flags, "+ "):
			// (the interpreter's %c takes no width and prints nothing
			// for an empty argument; its %s counts a width in runes where
			// C counts bytes, and pads with zeros on a 0 flag, which C
			// ignores for strings, as it ignores + and space for an
			// unsigned conversion)
			rewrite = true
		}
	}
	if !rewrite {
		// a character's code ('A) is a number to bash, not to the
		// interpreter's printf
		for _, a := range args[fi+1:] {
			if a != "" && (a[0] == '\'' || a[0] == '"') {
				rewrite = true
				break
			}
		}
	}
	if !rewrite {
		return args, false
	}
	var nf strings.Builder
	last := 0
	for _, sp := range specs {
		nf.WriteString(format[last:sp.start])
		if sp.verb == 'b' {
			nf.WriteString("%b")
		} else {
			nf.WriteString("%s")
		}
		last = sp.end
	}
	nf.WriteString(format[last:])
	out := append(append([]string(nil), args[:fi]...), nf.String())
	rest := args[fi+1:]
	n := max(len(specs), (len(rest)+len(specs)-1)/len(specs)*len(specs))
	for i := 0; i < n; i++ {
		a, given := "", i < len(rest)
		if given {
			a = rest[i]
		}
		out = append(out, cFormat(specs[i%len(specs)].flags, specs[i%len(specs)].verb, a, given))
	}
	return out, true
}

var shellNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?$`)

// printfV runs `printf -v VAR FMT ARGS…` (which the interpreter's printf
// lacks) as `eval VAR='…'`: the assignment happens in the caller's scope,
// as bash's printf -v does. A bad name or format is left to the
// interpreter to report.
func printfV(args []string) []string {
	name, format, rest := args[2], args[3], args[4:]
	if !shellNameRE.MatchString(name) {
		return args
	}
	var b strings.Builder
	for {
		s, n, err := expand.Format(&expand.Config{}, format, rest)
		if err != nil {
			return args
		}
		b.WriteString(s)
		rest = rest[n:]
		if n == 0 || len(rest) == 0 {
			break
		}
	}
	return []string{"eval", name + "='" + strings.ReplaceAll(b.String(), "'", `'"'"'`) + "'"}
}

// charCode is the number bash's printf reads from an argument that
// starts with a quote: the code of the character after it (its first
// byte when that is not UTF-8; 0 when there is none).
func charCode(arg string) (int64, bool) {
	if arg == "" || arg[0] != '\'' && arg[0] != '"' {
		return 0, false
	}
	if len(arg) == 1 {
		return 0, true
	}
	r, size := utf8.DecodeRuneInString(arg[1:])
	if r == utf8.RuneError && size <= 1 {
		return int64(arg[1]), true
	}
	return int64(r), true
}

// bashFloat is the number bash's printf reads for a floating conversion
// (bashNumber): a character's code, a hexadecimal number with or without
// a p exponent (strtold's; Go's ParseFloat wants the exponent), else the
// decimal; out of range, an infinity.
func bashFloat(arg string) float64 {
	if c, ok := charCode(arg); ok {
		return float64(c)
	}
	a := strings.TrimSpace(arg)
	u := strings.ToLower(strings.TrimLeft(a, "+-"))
	if strings.HasPrefix(u, "0x") && !strings.Contains(u, "p") {
		a += "p0"
	}
	v, _ := strconv.ParseFloat(a, 64)
	return v
}

// padBytes is C printf's %s of s under flags ("-10", "05", ".3"): the
// precision cuts s to that many bytes, the width pads it with spaces to
// that many bytes (on the left; on the right with '-'); the 0, +, space
// and # flags do nothing to a string. Widths and precisions count bytes,
// as C's do (Go's fmt counts runes).
func padBytes(flags, s string) string {
	i := 0
	left := false
	for i < len(flags) && strings.IndexByte("-+ #0", flags[i]) >= 0 {
		left = left || flags[i] == '-'
		i++
	}
	width, prec := flags[i:], ""
	if w, p, ok := strings.Cut(width, "."); ok {
		width, prec = w, p
		n, _ := strconv.Atoi(prec) // "." alone is 0
		if n < len(s) {
			s = s[:n]
		}
	}
	w := 0
	if width != "" {
		w, _ = strconv.Atoi(width)
	}
	if pad := w - len(s); pad > 0 {
		if left {
			return s + strings.Repeat(" ", pad)
		}
		return strings.Repeat(" ", pad) + s
	}
	return s
}

// cFormat formats one argument for a %<flags><verb> conversion the way C's
// printf (and so bash's) does.
func cFormat(flags string, verb byte, arg string, given bool) string {
	num := func() int64 {
		if c, ok := charCode(arg); ok {
			return c
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(arg), 0, 64) // out of range: the bound, as bash
		return v
	}
	switch verb {
	case 'b':
		return arg
	case 'q':
		// a missing argument is quoted as "" is: ''
		return padBytes(flags, bashQuote(arg))
	case 's':
		return padBytes(flags, arg)
	case 'c':
		if arg == "" {
			arg = "\x00" // bash prints the string's end: a NUL byte
		}
		if i := strings.IndexByte(flags, '.'); i >= 0 {
			flags = flags[:i] // C ignores a precision for %c
		}
		return padBytes(flags, arg[:1])
	case 'd', 'i':
		return fmt.Sprintf("%"+flags+"d", num())
	case 'u':
		return fmt.Sprintf("%"+strings.NewReplacer("+", "", " ", "").Replace(flags)+"d", uint64(num()))
	case 'o', 'x', 'X':
		n := uint64(num())
		flags = strings.NewReplacer("+", "", " ", "").Replace(flags)
		if n == 0 && verb != 'o' {
			flags = strings.ReplaceAll(flags, "#", "") // C: no 0x before a zero
		}
		return fmt.Sprintf("%"+flags+string(verb), n)
	case 'f', 'F', 'e', 'E', 'g', 'G':
		v := bashFloat(arg)
		if (verb == 'g' || verb == 'G') && !strings.Contains(flags, ".") {
			flags += ".6" // C's default precision; Go's %g is the shortest
		}
		return fmt.Sprintf("%"+flags+string(verb), v)
	}
	return arg
}

// bashQuote quotes s like bash's printf %q: sh_backslash_quote, or, for
// a string holding a control character, ansicQuote (bash 5.2
// lib/sh/shquote.c, ansic_shouldquote).
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return ansicQuote(s)
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(" \t\n'\"\\|&;()<>!{}*[]?^$`,", r):
			b.WriteByte('\\')
		case i == 0 && r == '#', r == '~' && (i == 0 || s[i-1] == '=' || s[i-1] == ':'):
			// (a tilde expands at a word's start and after = or :)
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ansicQuote is bash's $'…' quoting of s (lib/sh/strtrans.c
// ansic_quote): \a \b \f \n \r \t \v and \E for ESC, a backslash
// before ' and \, other control characters (and DEL) as three octal
// digits; every other byte as it is.
func ansicQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch e := strings.IndexByte("\a\b\f\n\r\t\v\x1b'\\", c); {
		case e >= 0:
			b.WriteByte('\\')
			b.WriteByte("abfnrtvE'\\"[e])
		case c < 0x20 || c == 0x7f:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// cat copies its files (or stdin, e.g. a heredoc) to stdout, so that
// `cat > config.yaml <<EOF … EOF` leaves the file's text in Writes. Files
// are read by the sandbox's rule (readKnown): one it cannot know makes the
// run Unsupported where cat's output or status is used, and prints
// nothing otherwise.
func (sb *sandbox) cat(ctx context.Context, c *Call, files []string) error {
	hc := c.hc
	var names []string
	for _, f := range files {
		if !strings.HasPrefix(f, "-") || f == "-" {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, f := range names {
		if f == "-" {
			if hc.Stdin != nil {
				copyOut(hc.Stdout, io.LimitReader(hc.Stdin, 1<<20))
			}
			continue
		}
		data, err := sb.readKnown(ctx, f)
		var u *unknownRead
		if errors.As(err, &u) {
			if sb.coverUnknown(c.Pos, strings.Join(ShortArgv(c.Args), " "), u) {
				// In a condition whose outcome becomes a choice.
				return ExitStatus(1)
			}
			if c.Use == UsePlain {
				unknownOutput(hc.Stdout, u.Error())
				continue
			}
			return c.Unsupported("cat", u.Error())
		}
		if err != nil {
			continue
		}
		say(hc.Stdout, string(data))
	}
	return nil
}

// say writes a modelled command's output to w (the shell's stdout or
// stderr). An error is ignored: a reader that stopped reading (`| head -1`)
// changes no command's status here.
func say(w io.Writer, s string) {
	_, _ = io.WriteString(w, s)
}

// copyOut copies r to w as say writes: a read error ends the input like
// its end does, a write error is ignored.
func copyOut(w io.Writer, r io.Reader) {
	// A here-document is small: 4 KiB, not io.Copy's 32 KiB, per copy.
	_, _ = io.CopyBuffer(w, r, make([]byte, 4<<10))
}

// tee copies stdin to stdout and into each named file's Writes entry.
func (sb *sandbox) tee(hc interp.HandlerContext, args []string) {
	appendMode := false
	var files []string
	for _, a := range args {
		switch {
		case a == "-a" || a == "--append":
			appendMode = true
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	var buf bytes.Buffer
	if hc.Stdin != nil {
		// A read error ends the input like its end does (the pipe closed).
		_, _ = io.Copy(&buf, io.LimitReader(hc.Stdin, 1<<20))
	}
	say(hc.Stdout, buf.String())
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	for _, f := range files {
		if appendMode {
			sb.run.Writes[f] += buf.String()
		} else {
			sb.run.Writes[f] = buf.String()
		}
		lp := f
		if !filepath.IsAbs(lp) {
			lp = filepath.Join(hc.Dir, lp)
		}
		sb.noteWrite(lp, buf.String(), appendMode, false)
	}
}

// abs resolves p against the interpreter's directory, then maps it from
// where it is mounted in the job (srun --container-mounts, docker -v, a
// staged copy of the checkout: sandbox.mount) to the real path.
func (sb *sandbox) abs(ctx context.Context, p string) string {
	return sb.absIn(interp.HandlerCtx(ctx).Dir, p)
}

// absIn is abs relative to dir.
func (sb *sandbox) absIn(dir, p string) string {
	if !filepath.IsAbs(p) {
		if sb.cfg.Holes && HasHole(dir) {
			// a working directory holding a hole (the interpreter looks
			// at one it changes into): a path resolved in it is looked at
			sb.inspectHole("a working directory")
		}
		p = filepath.Join(dir, p)
	}
	return sb.real(filepath.Clean(p))
}

// real maps a logical path through the mounts (longest prefix first).
func (sb *sandbox) real(p string) string {
	sb.fsmu.Lock()
	defer sb.fsmu.Unlock()
	for i := 0; i < 8; i++ { // mounts of mounts, bounded
		best := ""
		for m := range sb.mounts {
			if within(p, m) && len(m) > len(best) {
				best = m
			}
		}
		if best == "" {
			return p
		}
		to := sb.mounts[best]
		if to == best {
			return p
		}
		p = filepath.Join(to, strings.TrimPrefix(p, best))
	}
	return p
}

// mount makes the logical directory at show the real directory from (a
// container mount or a staged copy); "/" and the sandbox's own logical
// directories (logicalTmp) are never remounted.
func (sb *sandbox) mount(at, from string) {
	at, from = filepath.Clean(at), filepath.Clean(from)
	if at == "/" || at == from || sb.vdirs[at] {
		return
	}
	sb.fsmu.Lock()
	if sb.mounts == nil {
		sb.mounts = map[string]string{}
	}
	sb.mounts[at] = from
	sb.fsmu.Unlock()
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// sink collects what the script writes to one file.
type sink struct {
	sb         *sandbox
	name       string
	logical    string // the file's logical absolute path
	over       bool   // more was written than kept
	unknown    string // why what was written is not what the file holds (unknownOutput)
	appendMode bool
	buf        bytes.Buffer
}

func (s *sink) Read([]byte) (int, error) { return 0, io.EOF }
func (s *sink) Write(b []byte) (int, error) {
	if s.buf.Len() < 1<<20 {
		s.buf.Write(b)
	} else {
		s.over = true
	}
	return len(b), nil
}
func (s *sink) Close() error {
	s.sb.mu.Lock()
	defer s.sb.mu.Unlock()
	if s.sb.closed {
		return nil
	}
	if s.appendMode {
		s.sb.run.Writes[s.name] += s.buf.String()
	} else {
		s.sb.run.Writes[s.name] = s.buf.String()
		delete(s.sb.unknownWrites, s.name)
	}
	why := s.unknown
	if s.over {
		why = "the run wrote more to it than the sandbox keeps"
	}
	if why != "" {
		if s.sb.unknownWrites == nil {
			s.sb.unknownWrites = map[string]string{}
		}
		s.sb.unknownWrites[s.name] = why
	}
	s.sb.noteWrite(s.logical, s.buf.String(), s.appendMode, s.over)
	if n := len(s.sb.run.Written); n > 0 && s.unknown != "" {
		s.sb.run.Written[n-1].Unknown = s.unknown
	}
	return nil
}

// noteWrite records a write to the logical path p (sb.mu held).
func (sb *sandbox) noteWrite(p, data string, appendMode, truncated bool) {
	if p == "" {
		return
	}
	sb.seq++
	sb.run.Written = append(sb.run.Written, WrittenFile{Path: filepath.Clean(p), At: Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol},
		Data: data, Append: appendMode, Truncated: truncated, Seq: sb.seq})
}

// unknownOutput notes that a command the sandbox does not evaluate (so
// its output is not known) wrote to w: when w is a file the run writes, its
// content is not known from then on (readKnown).
func unknownOutput(w io.Writer, why string) {
	if s, ok := w.(*sink); ok && s.unknown == "" {
		s.unknown = why
	}
}

// nopRW, readOnly and readOnlyFile are what the open handler gives a
// redirection. Their reads never wait (an in-memory text, a regular file),
// so each has a read deadline that does nothing: the interpreter then
// reads them as they are, with no pipe and copying goroutine between
// (interp patch 6, PATCHES.md).
type nopRW struct{}

func (nopRW) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (nopRW) Close() error                { return nil }

func (nopRW) SetReadDeadline(time.Time) error { return nil }

type readOnly struct{ r io.Reader }

func (r readOnly) Read(b []byte) (int, error) { return r.r.Read(b) }
func (readOnly) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (readOnly) Close() error                 { return nil }

func (readOnly) SetReadDeadline(time.Time) error { return nil }

type readOnlyFile struct{ f *os.File }

func (r readOnlyFile) Read(b []byte) (int, error) { return r.f.Read(b) }
func (readOnlyFile) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (r readOnlyFile) Close() error               { return r.f.Close() }

func (readOnlyFile) SetReadDeadline(time.Time) error { return nil }

// arithWatch passes the interpreter's stderr on to w and notices the
// errors of mvdan.cc/sh/v3/expand.Arithm (which the interpreter prints and
// then goes on), stopping the run at the first one.
type arithWatch struct {
	w    io.Writer
	stop context.CancelFunc
	// pos is the position last reached (the sandbox's), asked when an
	// error is noticed: markArith makes it the failing expansion's.
	pos func() Pos
	mu  sync.Mutex
	msg string
	at  Pos
	// limit is the interpreter's "brace expansion would exceed N
	// elements" (mvdan.cc/sh/v3 expand/braces.go): bash would expand it,
	// the interpreter expands nothing, so the run is stopped.
	limit string
}

func (a *arithWatch) Write(b []byte) (int, error) {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "brace expansion would exceed") {
			a.mu.Lock()
			if a.limit == "" {
				a.limit = l
				a.stop()
			}
			a.mu.Unlock()
		} else if isArithErr(l) {
			var at Pos
			if a.pos != nil {
				at = a.pos()
			}
			a.mu.Lock()
			if a.msg == "" {
				a.msg, a.at = l, at
				a.stop()
			}
			a.mu.Unlock()
		}
	}
	return a.w.Write(b)
}

// limitMessage is the brace-expansion bound message, "" when none.
func (a *arithWatch) limitMessage() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit
}

// message is the first arithmetic error and where it happened ("" when
// none).
func (a *arithWatch) message() (string, Pos) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.msg, a.at
}

// isArithErr reports whether msg is one of expand.Arithm's errors
// (mvdan.cc/sh/v3 expand/arith.go).
func isArithErr(msg string) bool {
	return msg == "division by zero" || msg == "exponent less than 0" ||
		strings.HasPrefix(msg, "unsupported unary arithmetic operator") ||
		strings.HasPrefix(msg, "unsupported binary arithmetic operator")
}

// limitedBuffer keeps the first 64 KiB of the script's output.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *limitedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < 64<<10 {
		l.buf.Write(b)
	}
	return len(b), nil
}

// argsSize is the number of bytes in args.
func argsSize(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}

// markArith makes every arithmetic expansion and command report its own
// position before it is evaluated, so that an arithmetic error (which the
// interpreter prints without one) is placed where it is written, in its
// own file: `$((…))` gets `$(posCmd MARKER)` in front of it, `((…))` and
// `let` a first comma operand `$(posCmd MARKER)0` (which evaluates to 0
// and leaves the value and status to the expressions that follow).
func markArith(f *syntax.File, name string) {
	insertGuards(f, func(p syntax.WordPart) bool {
		ae, ok := p.(*syntax.ArithmExp)
		return ok && !ae.Bracket
	}, func(p syntax.WordPart) syntax.WordPart { return posSubst(p.Pos(), name) })
	first := func(at syntax.Pos, x syntax.ArithmExpr) syntax.ArithmExpr {
		zero := &syntax.Word{Parts: []syntax.WordPart{posSubst(at, name), &syntax.Lit{Value: "0"}}}
		return &syntax.BinaryArithm{OpPos: at, Op: syntax.Comma, X: zero, Y: x}
	}
	var cmds []func()
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ArithmCmd:
			if x.X != nil {
				cmds = append(cmds, func() { x.X = first(x.Pos(), x.X) })
			}
		case *syntax.LetClause:
			if len(x.Exprs) > 0 {
				cmds = append(cmds, func() { x.Exprs[0] = first(x.Pos(), x.Exprs[0]) })
			}
		}
		return true
	})
	for _, c := range cmds {
		c()
	}
}

// maxFieldWidth is the largest field width or precision Go's fmt formats
// (fmt's tooLarge: 1e6); past it fmt prints %!(NOVERB) where bash's
// printf prints the field.
const maxFieldWidth = 1_000_000

// printfUnknown says why `printf [-v VAR] FMT …` cannot be formatted as
// bash would ("" when it can): a field width or precision past
// maxFieldWidth.
func printfUnknown(args []string) string {
	fi := 1
	if len(args) > 3 && args[1] == "-v" {
		fi = 3
	}
	if len(args) <= fi {
		return ""
	}
	format := args[fi]
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		n := 0
		for _, r := range format[i+1 : j] {
			if r >= '0' && r <= '9' {
				if n = n*10 + int(r-'0'); n > maxFieldWidth {
					return fmt.Sprintf("printf %s: a field width or precision above %d, which the sandbox does not format (bash prints the field; Go's fmt would print %%!(NOVERB))", ShortArgv([]string{format})[0], maxFieldWidth)
				}
			} else {
				n = 0
			}
		}
		if j < len(format) && (format[j] == '%' || format[j] == 'b') && j > i+1 {
			// bash refuses %5% (an invalid conversion: it stops there,
			// status 1); the interpreter's %b takes no width
			return fmt.Sprintf("printf %s: %s, which the sandbox does not format as bash does", ShortArgv([]string{format})[0], format[i:j+1])
		}
		if j < len(format) && format[j] == '%' {
			j++
		}
		i = j - 1
	}
	if verb, arg, bad := printfBadNumber(args[fi], args[fi+1:]); bad {
		return fmt.Sprintf("printf %s: %s is not a number for %%%c (bash prints its leading part and ends with status 1, which the sandbox's printf does not)", ShortArgv([]string{format})[0], strconv.Quote(arg), verb)
	}
	return ""
}

// printfBadNumber reports the first argument of args that a numeric
// conversion of format takes (the format reused while arguments remain,
// as bash's printf does) and that bash does not read whole as a number
// (bashNumber): verb is the conversion. An argument holding a hole is
// left to the hole rule (holes.go).
func printfBadNumber(format string, args []string) (verb byte, arg string, bad bool) {
	var verbs []byte
	specs, _ := printfSpecs(format)
	for _, sp := range specs {
		if sp.verb != '%' {
			verbs = append(verbs, sp.verb)
		}
	}
	if len(verbs) == 0 {
		return 0, "", false
	}
	for k := 0; k < len(args); k++ {
		v := verbs[k%len(verbs)]
		a := args[k]
		if HasHole(a) {
			continue
		}
		switch {
		case strings.IndexByte("diouxX", v) >= 0:
			if !bashNumber(a, false) {
				return v, a, true
			}
		case strings.IndexByte("eEfFgGaA", v) >= 0:
			if !bashNumber(a, true) {
				return v, a, true
			}
		}
	}
	return 0, "", false
}

// bashNumber reports whether bash's printf reads s whole as a number for
// an integer conversion (strtoimax, base 0: an optional sign, then 0x
// and hex digits, 0 and octal digits, or decimal digits) or, float, a
// floating one (strtold: decimal or hexadecimal, an exponent, inf, nan):
// leading blanks are skipped (blanks alone are no number), an empty
// string is 0, and a string that starts with a quote is the code of the
// character after it (bash 5.2 builtins/printf.def getintmax,
// getfloatmax).
func bashNumber(s string, float bool) bool {
	if s == "" || s[0] == '\'' || s[0] == '"' {
		return true
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	u := strings.TrimLeft(t, "+-")
	if len(t)-len(u) > 1 || u == "" {
		return false
	}
	if float {
		l := strings.ToLower(u)
		if l == "inf" || l == "infinity" || l == "nan" {
			return true
		}
		if strings.HasPrefix(l, "0x") {
			h := l[2:]
			if e := strings.IndexByte(h, 'p'); e >= 0 {
				if x := strings.TrimLeft(h[e+1:], "+-"); len(h[e+1:])-len(x) > 1 || x == "" || strings.Trim(x, "0123456789") != "" {
					return false
				}
				h = h[:e]
			}
			h = strings.Replace(h, ".", "", 1)
			return h != "" && strings.Trim(h, "0123456789abcdef") == ""
		}
		if strings.ContainsAny(l, "_xn") {
			return false // what ParseFloat takes and strtold does not
		}
		_, err := strconv.ParseFloat(u, 64)
		return err == nil || errors.Is(err, strconv.ErrRange)
	}
	switch {
	case len(u) > 2 && (u[:2] == "0x" || u[:2] == "0X"):
		return strings.Trim(u[2:], "0123456789abcdefABCDEF") == ""
	case u[0] == '0':
		return strings.Trim(u, "01234567") == ""
	default:
		return strings.Trim(u, "0123456789") == ""
	}
}
