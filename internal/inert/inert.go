// Package inert is test support for the TestHostileEscape… tests (issue 20,
// item 4): the hostile values and the checks that an output is inert. It
// defines no flag, so every test package may import it.
package inert

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Hostile is the payload of the TestHostileEscape… tests (issue 20, item
// 4): a value from an untrusted checkout carrying each character that a
// terminal or a GitHub Actions runner acts on — CR, LF, ESC, NUL, U+2028
// — and the workflow commands they would start (actions/runner
// ActionCommand.cs: a line that starts with "::" after leading white
// space). Each call returns a fresh slice.
func Hostile() []string {
	return []string{
		"--x \x1b[2J::error::pwned\n::add-mask::abc",
		"v\n::stop-commands::tok",
		"cr\r::error::cr",
		"esc\x1b]0;title\x07\x1b[31m",
		"nul\x00::warning::after-nul",
		"ls\u2028::error::u2028",
		"ps\u2029 nel\u0085 bidi\u202e tab\t",
		"bad\xffbyte",
		"::add-mask::abc",
		"\u00a0::notice::nbsp",
		"it's \\ $HOME <img src=x onerror=alert(1)> </details> @octocat #123 o/r#7 GH-9",
		"legacy ##[add-mask]abc",
	}
}

// actionsCommand is a line our annotations printer writes: a command
// GitHub documents ("error", "warning", "notice") with escaped properties.
var actionsCommand = regexp.MustCompile(`^::(error|warning|notice)( (file|line|col|endLine|endColumn|title)=[^,:]*(,(file|line|col|endLine|endColumn|title)=[^,:]*)*)?::`)

// CheckInert fails t when out, printed by a printer of format name, (a)
// holds a raw control or format character (utf8 invalid bytes, C0/C1
// controls, DEL, Cf, U+2028/U+2029: launch.EscapeControl's set) other
// than newline and tab,
// or (b) has a line that starts with "::" after leading white space (a
// GitHub Actions workflow command) or holds "##[" anywhere (its legacy
// form, actions/runner ActionCommand.TryParse) — unless annotations is set and the
// line is one of the annotations printer's own commands (actionsCommand).
func CheckInert(t testing.TB, name, out string, annotations bool) {
	t.Helper()
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		bad := r == utf8.RuneError && n <= 1 ||
			r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp))
		if bad {
			t.Errorf("%s: raw %q at byte %d: …%q…", name, out[i:i+n], i, out[max(0, i-30):min(len(out), i+30)])
			return
		}
		i += n
	}
	for i, l := range strings.Split(out, "\n") {
		own := annotations && actionsCommand.MatchString(l)
		// a line that is our own "::" command is never read as the legacy
		// form (ActionCommandManager tries TryParseV2 first)
		if strings.Contains(l, "##[") && !own {
			t.Errorf("%s: line %d holds a legacy workflow command: %q", name, i+1, l)
		}
		rest := strings.TrimLeftFunc(l, unicode.IsSpace)
		if !strings.HasPrefix(rest, "::") {
			continue
		}
		if own && rest == l {
			continue
		}
		t.Errorf("%s: line %d is a workflow command: %q", name, i+1, l)
	}
}

// ShellCommand is one simple command of a shell text: its assignments
// (NAME=value prefixes) and its words, each expanded as bash would
// (quotes removed, $'…' escapes decoded; parameters expand to "").
type ShellCommand struct {
	Assigns map[string]string
	Words   []string
}

// ShellCommands parses src as bash (mvdan.cc/sh/v3/syntax) and expands
// every simple command's assignments and words, in order. Comments are
// skipped.
func ShellCommands(src string) ([]ShellCommand, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	cfg := &expand.Config{}
	var out []ShellCommand
	var werr error
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || werr != nil {
			return werr == nil
		}
		sc := ShellCommand{Assigns: map[string]string{}}
		for _, a := range c.Assigns {
			v := ""
			if a.Value != nil {
				fs, err := expand.Fields(cfg, a.Value)
				if err != nil {
					werr = fmt.Errorf("assignment %s: %w", a.Name.Value, err)
					return false
				}
				v = strings.Join(fs, " ")
			}
			sc.Assigns[a.Name.Value] = v
		}
		for _, w := range c.Args {
			// Fields removes quotes and backslashes (Literal keeps an
			// unquoted backslash); no word here expands to more than one.
			fs, err := expand.Fields(cfg, w)
			if err != nil {
				werr = err
				return false
			}
			sc.Words = append(sc.Words, strings.Join(fs, " "))
		}
		out = append(out, sc)
		return true
	})
	return out, werr
}

// UntilNUL is s up to its first NUL: all of a value any shell word can
// carry (bash and mvdan.cc/sh end $'…' at \x00; execve cannot pass one).
func UntilNUL(s string) string {
	s, _, _ = strings.Cut(s, "\x00")
	return s
}
