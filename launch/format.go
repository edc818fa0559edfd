package launch

import (
	"strings"
	"unicode"
)

// This file prints a Process in the SGLang cookbook's shell style, the one
// the AgentX page shows (sgl-project/sglang docs/src/snippets/_agentx.jsx,
// formatBlock; spec agentx-format.md (b) step 5). Every source prints this
// way so that texts from different sources can be compared line by line.

// Quote quotes one shell word the cookbook way:
//   - only [A-Za-z0-9_@%+=:,./-]: bare;
//   - that set plus '$', '{', '}': double quotes, so placeholders such as
//     "http://$ETCD_IP:2379" still expand;
//   - anything else: single quotes, each ' written as '\” ;
//   - the empty string: ”.
//
// One rule of our own comes first (issue 20, item 4): a value with a
// character a terminal or a GitHub Actions runner would act on (see
// ShellSafe: newline, tab, CR, ESC, NUL, any other C0/C1 control, DEL, a
// Unicode format character such as a bidi override, U+2028/U+2029, a byte
// that is not UTF-8) is written in bash's ANSI-C quoting (AppendANSIC), so
// the pasted word is the same value and nothing raw reaches the reader.
// The cookbook page prints such a value raw; every other value prints as
// the page prints it, byte for byte.
func Quote(s string) string {
	switch quoteClass(s) {
	case quoteBare:
		return s
	case quoteDouble:
		return `"` + s + `"`
	}
	return string(AppendQuote(nil, s))
}

// AppendQuote appends Quote(s) to dst.
func AppendQuote(dst []byte, s string) []byte {
	switch quoteClass(s) {
	case quoteBare:
		return append(dst, s...)
	case quoteDouble:
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	case quoteANSIC:
		return AppendANSIC(dst, s)
	}
	if s == "" {
		return append(dst, "''"...)
	}
	dst = append(dst, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			dst = append(dst, `'\''`...)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, '\'')
}

// AppendANSIC appends s as one word in bash's ANSI-C quoting, $'…' (GNU
// bash manual §3.1.2.4 "ANSI-C Quoting"; mvdan.cc/sh expands it the same
// way): \ as \\, ' as \', newline, tab, CR, ESC, BEL, BS, FF and VT as \n,
// \t, \r, \e, \a, \b, \f, \v, every other byte of a character ShellSafe
// rejects (and every byte that is not UTF-8) as \xHH, the second '#' of a
// "##[" (a legacy workflow command, legacyCommand) as \x23; everything
// else verbatim. bash reads at most two hex digits after \x, so the next
// character can never be taken into the escape. A NUL cannot be part of
// any shell word (bash and mvdan.cc/sh end $'…' at \x00; execve cannot
// pass it): it is shown as \x00 and a pasted word ends there.
func AppendANSIC(dst []byte, s string) []byte {
	dst = append(dst, "$'"...)
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		if r < 0 || !safeRune(r) {
			for _, c := range []byte(s[i : i+n]) {
				dst = appendCEscape(dst, c)
			}
			i += n
			continue
		}
		switch c := s[i]; {
		case c == '\\', c == '\'':
			dst = append(dst, '\\', c)
		case legacyAt(s, i):
			dst = append(dst, `\x23`...)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '\'')
}

// appendCEscape appends one byte as an ANSI-C escape (AppendANSIC).
func appendCEscape(dst []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(dst, `\n`...)
	case '\t':
		return append(dst, `\t`...)
	case '\r':
		return append(dst, `\r`...)
	case 0x1b:
		return append(dst, `\e`...)
	case '\a':
		return append(dst, `\a`...)
	case '\b':
		return append(dst, `\b`...)
	case '\f':
		return append(dst, `\f`...)
	case '\v':
		return append(dst, `\v`...)
	}
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'x', hex[c>>4], hex[c&15])
}

const (
	quoteBare = iota
	quoteDouble
	quoteSingle
	quoteANSIC
)

// quoteClass says how Quote writes s.
func quoteClass(s string) int {
	if s == "" {
		return quoteSingle
	}
	if !ShellSafe(s) {
		return quoteANSIC
	}
	class := quoteBare
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		case c == '$' || c == '{' || c == '}':
			class = quoteDouble
		default:
			return quoteSingle
		}
	}
	return class
}

// nginxNoArgs is what the cookbook prints for an nginx block without args,
// whatever its stored cmd (the data stores `nginx -c nginx.conf -g daemon off;`).
const nginxNoArgs = "nginx -c nginx.conf -g 'daemon off;'"

// Format renders p as shell text, lines joined by "\n", no trailing newline:
//  1. each Preamble line verbatim;
//  2. one `NAME=<Quote(value)> \` line per Env entry, in Env order (no
//     `export`: the variables prefix the command);
//  3. with no Args, the Program alone (a KindNginx process without args
//     prints `nginx -c nginx.conf -g 'daemon off;'`); otherwise `Program \`
//     then one line per Arg: two spaces, the flag, each value quoted, with
//     ` \` on every line but the last. Program and flags are printed raw; a
//     positional Arg (empty Flag) prints its values only.
//
// Our own rule for text from a checkout (issue 20, item 4; see Quote):
// a Program, flag or env name that is not ShellSafe is written as one
// ANSI-C quoted word, a Preamble line is split at its newlines and each
// piece that is not ShellSafe written the same way, and a line that would
// start with "::" after leading white space (a GitHub Actions workflow
// command, actions/runner ActionCommand.TryParseV2) gets an empty quoted string (two single quotes) before the
// "::" (GuardLine), which leaves the shell word unchanged. Everything from
// a real cookbook page prints as the page prints it.
func Format(p *Process) string {
	return string(AppendFormat(nil, p))
}

// AppendFormat appends Format(p) to dst.
func AppendFormat(dst []byte, p *Process) []byte {
	first := true
	start := len(dst)
	line := func() {
		if !first {
			dst = GuardLine(dst, start)
			dst = append(dst, '\n')
		}
		start = len(dst)
		first = false
	}
	for _, l := range p.Preamble {
		for i, piece := range strings.Split(l, "\n") {
			if i == 0 {
				line()
			} else {
				dst = GuardLine(dst, start)
				dst = append(dst, '\n')
				start = len(dst)
			}
			dst = appendRaw(dst, piece)
		}
	}
	for _, e := range p.Env {
		line()
		dst = appendRaw(dst, e.Name)
		dst = append(dst, '=')
		dst = AppendQuote(dst, e.Value)
		dst = append(dst, " \\"...)
	}
	line()
	if len(p.Args) == 0 {
		if p.Kind == KindNginx {
			return append(dst, nginxNoArgs...)
		}
		return GuardLine(appendRaw(dst, p.Program), start)
	}
	dst = appendRaw(dst, p.Program)
	dst = append(dst, " \\"...)
	dst = GuardLine(dst, start)
	for i, a := range p.Args {
		dst = append(dst, "\n  "...)
		start = len(dst) - 2
		sep := false
		if a.Flag != "" {
			dst = appendRaw(dst, a.Flag)
			sep = true
		}
		for _, v := range a.Values {
			if sep {
				dst = append(dst, ' ')
			}
			dst = AppendQuote(dst, v)
			sep = true
		}
		if i < len(p.Args)-1 {
			dst = append(dst, " \\"...)
		}
		dst = GuardLine(dst, start)
	}
	return dst
}

// appendRaw appends text Format prints raw (a program, a flag, an env
// name, a piece of a preamble line): verbatim when ShellSafe, else as one
// ANSI-C quoted word.
func appendRaw(dst []byte, s string) []byte {
	if ShellSafe(s) {
		return append(dst, s...)
	}
	return AppendANSIC(dst, s)
}

// GuardLine keeps the line dst[start:] (no newline in it) from being a
// GitHub Actions workflow command: the runner trims leading white space
// from every output line and acts on a line that then starts with "::"
// (actions/runner src/Runner.Common/ActionCommand.cs, TryParseV2), so an empty quoted string (two single quotes)
// is inserted before that "::". In shell the empty quotes join the word
// that follows and change nothing. A line that is no such command is
// returned unchanged.
func GuardLine(dst []byte, start int) []byte {
	l := string(dst[start:])
	rest := strings.TrimLeftFunc(l, unicode.IsSpace)
	if !strings.HasPrefix(rest, "::") {
		return dst
	}
	at := start + len(l) - len(rest)
	dst = append(dst, "''"...)
	copy(dst[at+2:], dst[at:len(dst)-2])
	dst[at], dst[at+1] = '\'', '\''
	return dst
}

// GuardLines applies GuardLine to every line of s.
func GuardLines(s string) string {
	if !strings.Contains(s, "::") {
		return s
	}
	var b []byte
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b = append(b, '\n')
		}
		start := len(b)
		b = append(b, l...)
		b = GuardLine(b, start)
	}
	return string(b)
}
