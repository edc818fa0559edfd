package launch

import (
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ShellText makes shell source written by someone else (a command a
// cookbook page's own code composed) safe to print as shell, with the
// rule of Quote (issue 20, item 4): a word that carries a character
// EscapeControl escapes (CR, ESC, NUL, U+2028, …), or whose text goes on
// to a line that would start a GitHub Actions workflow command (GuardLine),
// is written again as one ANSI-C quoted word of the same value (parsed
// and expanded with mvdan.cc/sh/v3, as bash reads it). A word with a
// parameter, command or arithmetic expansion cannot be written again
// without changing what it expands to: its characters are escaped as
// EscapeLine does (visible, no longer the same shell). Newlines and tabs
// the page writes inside a quoted word stay, as the page shows them. Then
// every line goes through GuardLine and anything left outside words
// through EscapeControl. Source that needs none of this (every real page
// command) is returned unchanged; source that does not parse (the parser
// refuses bytes that are not UTF-8) is escaped line by line (EscapeLine,
// then GuardLines) without re-quoting.
func ShellText(src string) string {
	if EscapeControl(src) == src && GuardLines(src) == src && !strings.Contains(src, legacyCommand) {
		return src
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return escapeLines(src)
	}
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		from, to := int(w.Pos().Offset()), int(w.End().Offset())
		if from < 0 || to > len(src) || from >= to || !wordNeedsQuote(src[from:to]) {
			return false
		}
		if v, ok := literalWord(w); ok {
			edits = append(edits, edit{from, to, string(AppendANSIC(nil, v))})
		} else {
			edits = append(edits, edit{from, to, EscapeLine(src[from:to])})
		}
		return false
	})
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.from < at {
			continue
		}
		b.WriteString(src[at:e.from])
		b.WriteString(e.text)
		at = e.to
	}
	b.WriteString(src[at:])
	// a "##[" left is in a comment (words with one were written again)
	return strings.ReplaceAll(EscapeControl(GuardLines(b.String())), legacyCommand, `#\x23[`)
}

// wordNeedsQuote: the source text of a word holds a character
// EscapeControl escapes or a "##[" (legacyCommand), or one of its lines
// after the first would start with "::" after leading white space.
func wordNeedsQuote(s string) bool {
	if EscapeControl(s) != s || strings.Contains(s, legacyCommand) {
		return true
	}
	lines := strings.Split(s, "\n")
	for _, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
			return true
		}
	}
	return false
}

// literalWord is the value of a word made only of literal text, quoted
// or not (no expansion of any kind), as bash reads it.
func literalWord(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	fs, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(fs) != 1 {
		return "", false
	}
	return fs[0], true
}

// escapeLines is EscapeLine applied to every line of s, then GuardLines.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = EscapeLine(l)
	}
	return GuardLines(strings.Join(lines, "\n"))
}
