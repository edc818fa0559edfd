// cookbook-sync patch (issue 24): words that expand to their own text.

package interp

import (
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// plainWord returns the one field a word gives when its expansion is its
// own text, the same in [expand.Fields] (fields true) and [expand.Literal]
// (fields false): a single literal with no character any expansion acts on
// (a backslash, a NUL, a leading tilde, and for fields a brace or a glob
// pattern: pattern.HasMeta, as expand's escapedGlobField decides), a
// single-quoted string that is not $'…', or a double-quoted literal with
// no backslash or NUL. ok is false for any other word, which
// the caller expands as before. The rules are expand's own (mvdan.cc/sh/v3
// v3.14.1 expand.go, wordFields and wordField): a literal part is only
// changed by tilde expansion at its start, backslash removal and the cut
// at a NUL, and, as a field, by brace expansion and globbing.
func plainWord(w *syntax.Word, fields bool) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		v := p.Value
		if v == "" || v[0] == '~' {
			return "", false
		}
		globChar := false
		for i := 0; i < len(v); i++ {
			switch litByte[v[i]] {
			case litPlain:
			case litNever:
				return "", false
			case litBrace:
				if fields {
					return "", false
				}
			case litGlob:
				globChar = true
			}
		}
		if fields && globChar && pattern.HasMeta(v, 0) {
			// a pattern (expand globs it); "[" alone, as in `[ -f x ]`, is not
			return "", false
		}
		return v, true
	case *syntax.SglQuoted:
		if p.Dollar {
			return "", false
		}
		return p.Value, true
	case *syntax.DblQuoted:
		if len(p.Parts) != 1 {
			return "", false
		}
		lit, ok := p.Parts[0].(*syntax.Lit)
		if !ok || strings.IndexByte(lit.Value, '\\') >= 0 || strings.IndexByte(lit.Value, 0) >= 0 {
			return "", false
		}
		return lit.Value, true
	}
	return "", false
}

// The classes of a literal's bytes plainWord tells apart, by byte
// (litByte): one table lookup a byte instead of a switch (every command's
// words are read on each run; the sandbox's position marker is a long
// one).
const (
	litPlain = iota // changed by no expansion
	litNever        // a backslash or a NUL: never plain
	litBrace        // {: brace expansion, in a field
	litGlob         // * ? [: a pattern, in a field, when pattern.HasMeta
)

var litByte = [256]uint8{'\\': litNever, 0: litNever, '{': litBrace, '*': litGlob, '?': litGlob, '[': litGlob}

// plainFields is expand.Fields for words that are all plain (plainWord),
// a lone double-quoted parameter (paramWord) or "$@" (allParams): one
// field each, the text or the parameter's value, a field per positional
// parameter for "$@". ok is false when any word is neither.
// Skipping expand leaves r.ecfg as it was: what an expansion sets in it
// (IFS read into it) is set again by every exported expand function before
// it is read (expand.go prepareConfig; Arithm expands its words with
// Literal).
func (r *Runner) plainFields(words []*syntax.Word) ([]string, bool) {
	if len(words) == 0 {
		return nil, true // what expand.Fields gives for no words
	}
	var buf [8]string // the texts, while it is not known that all are plain
	texts := buf[:0]
	if len(words) > len(buf) {
		texts = make([]string, 0, len(words))
	}
	for _, w := range words {
		s, ok := plainWord(w, true)
		if !ok {
			if allParams(w) {
				texts = append(texts, r.lookupVar("@").List...)
				continue
			}
			if s, ok = r.paramWord(w); !ok {
				n := 0
				if s, n, ok = r.joinedWord(w); !ok {
					return nil, false
				}
				if n == 0 {
					continue // an unquoted empty expansion: no field
				}
			}
		}
		texts = append(texts, s)
	}
	if len(texts) == 0 {
		return nil, true // "$@" with no parameters: no field, as expand gives
	}
	return append([]string(nil), texts...), true
}

// paramWord is the value of a word that is a lone double-quoted parameter
// expansion of a variable, "$NAME" or "${NAME}", or with a default that
// is plain text, "${NAME:-text}" or "${NAME-text}", or double-quoted text
// and such expansions ("--dir=$A/$B"): what expand.Fields
// (one field) and expand.Literal give it, by expand's own rules (v3.14.1
// param.go paramExp, varInd; expand.go wordFields, quotedElemFields). ok
// is false, and the caller expands the word as before, for any other word
// and for a variable that is not a string or unset (an array, a name
// reference) or an unset one under nounset (expand's error). The name is
// looked up once, as expand does, and only a name whose lookup has no
// effect is taken (pureParam: a variable, $0 to $9, $#, $?; never RANDOM,
// PPID, $$ …), so the caller's own lookup, when it expands the word,
// finds the same. "$@" is plainFields' (one field per parameter).
func (r *Runner) paramWord(w *syntax.Word) (string, bool) {
	return r.paramParts(w.Parts, false)
}

// paramParts is paramWord for the parts of a word; literal also takes a
// lone parameter expansion that is not quoted, which expand.Literal (no
// field splitting, no globbing) expands as the quoted one, and "$@",
// the positional parameters joined with spaces.
func (r *Runner) paramParts(parts []syntax.WordPart, literal bool) (string, bool) {
	if len(parts) != 1 {
		return "", false
	}
	switch p := parts[0].(type) {
	case *syntax.DblQuoted:
		if len(p.Parts) == 1 {
			if pe, ok := p.Parts[0].(*syntax.ParamExp); ok {
				return r.simpleParam(pe, literal)
			}
			return "", false
		}
		// "text $A text $B": one field, the parts joined (expand's
		// wordField in double quotes), literals with no backslash or NUL
		var b strings.Builder
		params := 0
		for _, q := range p.Parts {
			switch q := q.(type) {
			case *syntax.Lit:
				if strings.IndexByte(q.Value, '\\') >= 0 || strings.IndexByte(q.Value, 0) >= 0 {
					return "", false
				}
				b.WriteString(q.Value)
			case *syntax.ParamExp:
				if q.Param == nil || q.Param.Value == "@" {
					return "", false
				}
				v, ok := r.simpleParam(q, false)
				if !ok {
					return "", false
				}
				b.WriteString(v)
				params++
			default:
				return "", false
			}
		}
		return b.String(), params > 0
	case *syntax.ParamExp:
		if literal {
			return r.simpleParam(p, true)
		}
	}
	return "", false
}

// simpleParam is the value of one parameter expansion of a name whose
// lookup has no effect (pureParam), with no operator or a plain default
// (${NAME:-text}, ${NAME-text}), as expand's paramExp gives it; in a
// literal also "$@", the positional parameters joined with spaces. ok is
// false for any other expansion, an array or name reference, and an unset
// parameter with no default under nounset (expand reports it).
func (r *Runner) simpleParam(pe *syntax.ParamExp, literal bool) (string, bool) {
	def, hasDef, ok := paramForm(pe)
	if !ok {
		return "", false
	}
	name := pe.Param.Value
	if name == "@" && literal && pe.Exp == nil {
		// "$@" in a literal: the positional parameters joined with
		// spaces (paramExp's join for an "@" index)
		return strings.Join(r.lookupVar("@").List, " "), true
	}
	if !pureParam(name) {
		return "", false
	}
	vr := r.lookupVar(name)
	switch vr.Kind {
	case expand.String, expand.Unknown:
	default:
		return "", false // an array, a name reference: expand's rules apply
	}
	str, set := vr.String(), vr.IsSet()
	switch {
	case !hasDef:
		if !set && r.ecfg.NoUnset {
			return "", false // expand reports the unbound variable
		}
	case pe.Exp.Op == syntax.DefaultUnsetOrNull:
		if str == "" {
			str = def
		}
	default: // DefaultUnset
		if !set {
			str = def
		}
	}
	return str, true
}

// guardedLiteral is expand.Literal for a word that starts with a command
// substitution the quiet-call handler answers (the sandbox's guard put in
// front of every assignment value, QuietCalls) followed by one part
// that is plain or a lone parameter: the substitution is run by
// quietSubst, as expand's CmdSubst callback runs it (its output without
// NULs and trailing newlines, an error ending the word as ""), then the
// part is expanded, in that order, as expand expands it after the
// substitution (the part is not first, so no tilde expansion: a part this
// shortcut takes never starts with "~"). ok is false, with nothing run,
// for any other word.
func (r *Runner) guardedLiteral(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 2 {
		return "", false
	}
	cs, ok := word.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 || catShortcutArg(cs.Stmts[0]) != nil {
		return "", false
	}
	rest := word.Parts[1:]
	text, isText := plainWord(&syntax.Word{Parts: rest}, false)
	if dq, ok := rest[0].(*syntax.DblQuoted); ok && len(dq.Parts) == 0 {
		text, isText = "", true
	}
	if !isText && !paramShape(rest) {
		return "", false
	}
	var out strings.Builder
	handled, err := r.quietSubst(r.ectx, &out, cs)
	if !handled {
		return "", false
	}
	if err != nil {
		r.expandErr(err)
		return "", true
	}
	head := strings.TrimRight(strings.ReplaceAll(out.String(), "\x00", ""), "\n")
	if isText {
		return head + text, true
	}
	if v, ok := r.paramParts(rest, true); ok {
		return head + v, true
	}
	// an array, a name reference, nounset: the part as expand expands it
	v, err := expand.Literal(r.ecfg, &syntax.Word{Parts: rest})
	if err != nil {
		r.expandErr(err)
		return "", true
	}
	return head + v, true
}

// pureParam reports whether name is a parameter whose lookup has no
// effect and gives a string or nothing: a variable name but the shell's
// dynamic ones (RANDOM, SRANDOM, PPID, DIRSTACK, and LINENO, which expand
// answers itself), a positional parameter $0 to $9, $# or $? (lookupVar).
func pureParam(name string) bool {
	switch name {
	case "PPID", "RANDOM", "SRANDOM", "DIRSTACK", "LINENO":
		return false
	case "#", "?":
		return true
	}
	if len(name) == 1 && name[0] >= '0' && name[0] <= '9' {
		return true
	}
	return syntax.ValidName(name)
}

// allParams reports whether w is "$@" or "${@}": the positional
// parameters, one field each (expand.go quotedElemFields, listElems).
func allParams(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	dq, ok := w.Parts[0].(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return false
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "@" && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet &&
		pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

// paramShape reports whether parts is what paramParts (literal) takes but
// for the variable's value: a lone parameter expansion, quoted or not, of
// a name with no operator or a plain default.
func paramShape(parts []syntax.WordPart) bool {
	var pe *syntax.ParamExp
	switch p := parts[0].(type) {
	case *syntax.DblQuoted:
		if len(p.Parts) != 1 {
			return false
		}
		pe, _ = p.Parts[0].(*syntax.ParamExp)
	case *syntax.ParamExp:
		pe = p
	}
	if pe == nil {
		return false
	}
	_, _, ok := paramForm(pe)
	return ok && pureParam(pe.Param.Value)
}

// paramForm reads the form simpleParam takes: a parameter with no
// operator, or with a default (":-", "-") that is plain text (def, hasDef).
// ok is false for any other expansion.
func paramForm(pe *syntax.ParamExp) (def string, hasDef, ok bool) {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.Index != nil ||
		pe.Slice != nil || pe.Repl != nil || pe.Names != 0 {
		return "", false, false
	}
	if pe.Exp == nil {
		return "", false, true
	}
	if pe.Exp.Op != syntax.DefaultUnsetOrNull && pe.Exp.Op != syntax.DefaultUnset {
		return "", false, false
	}
	if pe.Exp.Word != nil {
		if def, ok = plainWord(pe.Exp.Word, false); !ok {
			return "", false, false
		}
	}
	return def, true, true
}

// joinedWord is expand.Fields for a word of parts that each expand to one
// string without field splitting or globbing: literals with no character
// expand acts on (plainWord's, and no glob character at all, no leading
// tilde), single-quoted strings (not $'…'), double-quoted text and simple
// parameters (paramParts), and unquoted simple parameters (simpleParam)
// whose value holds no character of IFS and no glob character. The parts
// are joined into one field; n is 0, no field, when the text is empty and
// no part was quoted (an unquoted empty expansion), as expand's
// wordFields gives. ok is false for any other word, which the caller
// expands as before (the lookups made here have no effect: pureParam).
func (r *Runner) joinedWord(w *syntax.Word) (field string, n int, ok bool) {
	if len(w.Parts) < 2 {
		return "", 0, false // one part: plainWord's or paramWord's, else expand's
	}
	var b strings.Builder
	quoted := false
	ifs := ""
	ifsRead := false
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") || strings.ContainsAny(v, "\\\x00{*?[") {
				return "", 0, false
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", 0, false
			}
			b.WriteString(p.Value)
			quoted = true
		case *syntax.DblQuoted:
			v, ok := plainWord(&syntax.Word{Parts: []syntax.WordPart{p}}, false)
			switch {
			case ok:
			case len(p.Parts) == 0:
				v = ""
			default:
				if v, ok = r.paramParts([]syntax.WordPart{p}, false); !ok {
					return "", 0, false
				}
			}
			b.WriteString(v)
			quoted = true
		case *syntax.ParamExp:
			if p.Param == nil || p.Param.Value == "@" || p.Param.Value == "*" {
				return "", 0, false
			}
			v, ok := r.simpleParam(p, false)
			if !ok || strings.ContainsAny(v, "*?[") || r.inspectHole != nil && expand.HasHole(v) {
				// cookbook-sync patch: a hole is split by expand, which
				// says when the split looks at it
				return "", 0, false
			}
			if !ifsRead {
				ifs, ifsRead = " \t\n", true
				if vr := r.lookupVar("IFS"); vr.IsSet() {
					ifs = vr.String()
				}
				if r.inspectHole != nil && expand.HasHole(ifs) {
					// cookbook-sync patch: expand looks at such an IFS
					return "", 0, false
				}
			}
			if ifs != "" && strings.ContainsAny(v, ifs) {
				return "", 0, false // field splitting: expand's
			}
			b.WriteString(v)
		default:
			return "", 0, false
		}
	}
	if b.Len() == 0 && !quoted {
		return "", 0, true
	}
	return b.String(), 1, true
}
